import Foundation

extension Realm {
    /// Where and how a Realm is opened, as in Realm.
    public struct Configuration: Sendable {
        /// The database file. Setting it clears `inMemoryIdentifier`.
        public var fileURL: URL? {
            didSet { if fileURL != nil { _inMemoryIdentifier = nil } }
        }

        /// A Realm whose data lives in memory, shared by the instances of this
        /// process: a file in /dev/shm that is unlinked as soon as it is open, so
        /// nothing stays behind, even when the process is killed. Setting it clears `fileURL`.
        public var inMemoryIdentifier: String? {
            get { _inMemoryIdentifier }
            set {
                _inMemoryIdentifier = newValue
                if newValue != nil { fileURL = nil }
            }
        }
        private var _inMemoryIdentifier: String?

        public var readOnly: Bool
        public var schemaVersion: UInt64
        /// When the file's schema differs from the model classes, delete the file
        /// and start afresh instead of throwing (Larder has no migrations yet).
        public var deleteRealmIfMigrationNeeded: Bool
        /// The classes this Realm stores; nil means every model class used so far.
        public var objectTypes: [Object.Type]?
        /// The most versions of the file that may be kept at once (see
        /// `Realm.numberOfActiveVersions`): opening a Realm or committing a write while
        /// more are kept throws Realm's error, "Number of active versions (N) in the
        /// Realm exceeded the limit of M" (the write is cancelled); freezing traps with it. Frozen Realms and Realms that read an
        /// old version without refreshing keep versions, and the pages only they use,
        /// so the file grows; the limit finds them early. Nil: no limit.
        public var maximumNumberOfActiveVersions: UInt?

        public init(fileURL: URL? = Configuration.defaultFileURL, inMemoryIdentifier: String? = nil,
                    readOnly: Bool = false, schemaVersion: UInt64 = 0, deleteRealmIfMigrationNeeded: Bool = false,
                    objectTypes: [Object.Type]? = nil, maximumNumberOfActiveVersions: UInt? = nil) {
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
            self.fileURL = inMemoryIdentifier == nil ? fileURL : nil
            self._inMemoryIdentifier = inMemoryIdentifier
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.objectTypes = objectTypes
        }

        /// `$XDG_DATA_HOME/larder/default.realm`, or `~/.local/share/larder/default.realm`.
        public static var defaultFileURL: URL {
            let environment = ProcessInfo.processInfo.environment
            let base = environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
            return base.appendingPathComponent("larder").appendingPathComponent("default.realm")
        }

        private static let lock = NSLock()
        // Safe: read and written only under `lock`.
        nonisolated(unsafe) private static var storedDefault = Configuration()

        /// The configuration `Realm()` uses.
        public static var defaultConfiguration: Configuration {
            get { lock.withLock { storedDefault } }
            set { lock.withLock { storedDefault = newValue } }
        }

        /// The file this configuration opens.
        var path: String {
            if let identifier = inMemoryIdentifier {
                let directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
                let safe = identifier.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "memory"
                return "\(directory)/larder-\(getpid())-\(safe).realm"
            }
            return (fileURL ?? Configuration.defaultFileURL).path
        }
    }
}
