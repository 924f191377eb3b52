import CLarder
import Foundation

extension Realm {
    /// Deletes the database file of configuration; returns whether there was one.
    /// Throws `.alreadyOpen` while this process has it open. The `-lock` file
    /// stays, as Realm keeps its `.lock`: another process may still hold it, and
    /// a lock file nobody holds is reset by the next open. Another process that
    /// has the file open is not detected.
    @discardableResult
    public static func deleteFiles(for configuration: Realm.Configuration) throws -> Bool {
        let path = configuration.path
        if Environment.isOpen(at: path) {
            throw Realm.Error(.alreadyOpen, "Cannot delete files of an open Realm: '\(path)' is still in use.")
        }
        guard FileManager.default.fileExists(atPath: path) else { return false }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw Realm.Error(.fileOperationFailed, "Cannot delete '\(path)': \(error.localizedDescription)")
        }
        return true
    }

    /// Whether configuration's file exists.
    public static func fileExists(for configuration: Realm.Configuration) -> Bool {
        FileManager.default.fileExists(atPath: configuration.path)
    }
}

extension Realm {
    /// Writes a compacted copy of the file (its free pages left out) to fileURL, which
    /// must not exist: throws `.fileExists` when it does. The copy holds the last
    /// committed version; inside a write transaction this throws instead (Realm copies
    /// the uncommitted changes too, which Larder's copy cannot). Larder has no
    /// encryption: a key throws `.invalidInput`.
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        instance.verifyThread()
        if encryptionKey != nil {
            throw Realm.Error(.invalidInput, "Cannot write an encrypted copy: Larder has no encryption.")
        }
        if isInWriteTransaction {
            throw Realm.Error(.fail, "Cannot write a copy of the Realm inside a write transaction: " +
                              "commit or cancel it first (Larder copies committed data).")
        }
        try instance.environment.writeCopy(to: fileURL.path)
    }

    /// Writes the copy to configuration's file (`writeCopy(toFile:)`).
    public func writeCopy(configuration: Realm.Configuration) throws {
        try writeCopy(toFile: URL(fileURLWithPath: configuration.path))
    }
}

extension Environment {
    /// A compacted copy of the file at path (C `lar_env_copy`).
    func writeCopy(to path: String) throws {
        let rc = lar_env_copy(handle, path)
        if rc == LAR_OK { return }
        let message = String(cString: lar_error_last().pointee.message)
        if rc == LAR_EEXISTS { throw Realm.Error(.fileExists, "Cannot write a copy to '\(path)': \(message)") }
        throw Realm.Error.last(rc, context: "Cannot write a copy to '\(path)'")
    }
}
