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
