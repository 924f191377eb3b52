import Foundation
import XCTest
@testable import Larder

/// Database files: deleting them, read-only directories, in-memory Realms.
final class RealmFilesTests: RealmTestCase {
    func testDeleteFilesRefusesAnOpenRealmThenDeletesTheFile() throws {
        let configuration = configuration([Dog.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(Dog()) }
            XCTAssertThrowsError(try Realm.deleteFiles(for: configuration)) { error in
                XCTAssertEqual((error as? Realm.Error)?.code, .alreadyOpen)
                XCTAssertEqual((error as? Realm.Error)?.message,
                               "Cannot delete files of an open Realm: '\(fileURL.path)' is still in use.")
            }
        }
        XCTAssertTrue(Realm.fileExists(for: configuration))
        XCTAssertTrue(try Realm.deleteFiles(for: configuration))
        XCTAssertFalse(FileManager.default.fileExists(atPath: fileURL.path))
        XCTAssertFalse(try Realm.deleteFiles(for: configuration))
        XCTAssertEqual(try Realm(configuration: configuration).objects(Dog.self).count, 0)
    }

    func testWriteCopyIsCompactedAndOpens() throws {
        let realm = try openRealm([Dog.self])
        let name = String(repeating: "n", count: 500)
        try realm.write { for i in 0..<2000 { realm.add(Dog(value: ["name": name, "age": i])) } }
        try realm.write { realm.delete(realm.objects(Dog.self).filter("age >= 100")) }
        let copyURL = directory.appendingPathComponent("copy.realm")
        try realm.writeCopy(toFile: copyURL)
        func size(_ url: URL) throws -> Int { try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int }
        XCTAssertLessThan(try size(copyURL), try size(fileURL) / 2)
        let copy = try Realm(configuration: Realm.Configuration(fileURL: copyURL, objectTypes: [Dog.self]))
        XCTAssertEqual(copy.objects(Dog.self).count, 100)
        XCTAssertEqual(copy.objects(Dog.self).sum(ofProperty: "age") as Int, 4950)
        try copy.write { copy.add(Dog()) }
        XCTAssertEqual(realm.objects(Dog.self).count, 100, "the original is untouched")
    }

    func testWriteCopyRefusesAnExistingFileAWriteAndAKey() throws {
        let realm = try openRealm([Dog.self])
        try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
        let existing = directory.appendingPathComponent("existing.realm")
        try Data("keep".utf8).write(to: existing)
        XCTAssertThrowsError(try realm.writeCopy(toFile: existing)) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .fileExists)
        }
        XCTAssertEqual(try Data(contentsOf: existing), Data("keep".utf8))
        XCTAssertThrowsError(try realm.writeCopy(toFile: fileURL)) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .fileExists)
        }
        let copyURL = directory.appendingPathComponent("copy.realm")
        XCTAssertThrowsError(try realm.writeCopy(toFile: copyURL, encryptionKey: Data(count: 64))) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidInput)
        }
        realm.beginWrite()
        XCTAssertThrowsError(try realm.writeCopy(toFile: copyURL))
        realm.cancelWrite()
        XCTAssertFalse(FileManager.default.fileExists(atPath: copyURL.path))
        try realm.writeCopy(configuration: Realm.Configuration(fileURL: copyURL, objectTypes: [Dog.self]))
        let copy = try Realm(configuration: Realm.Configuration(fileURL: copyURL, objectTypes: [Dog.self]))
        XCTAssertEqual(copy.objects(Dog.self).first?.name, "Rex")
    }

    /// Runs only as a user other than root (e.g. `runuser -u nobody -- <test binary> <this test>`).
    /// The file keeps its -lock file: opening one without it in such a directory is the C core's part.
    func testAReadOnlyRealmOpensInADirectoryItCannotWrite() throws {
        try XCTSkipIf(getuid() == 0, "root writes any directory: the permission check cannot fail here")
        do {
            let realm = try openRealm([Dog.self])
            try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path) }
        var readOnly = configuration([Dog.self])
        readOnly.readOnly = true
        XCTAssertEqual(try Realm(configuration: readOnly).objects(Dog.self).first?.name, "Rex")
    }

    func testAnInMemoryRealmLeavesNothingBehindWhenItsProcessIsKilled() throws {
        let identifier = "killed-\(UUID().uuidString)"
        let child = try ChildProcess.start("in-memory-wait", argument: identifier)
        var output = ""
        let deadline = Date().addingTimeInterval(30)
        while !output.contains("READY"), Date() < deadline {
            output += String(decoding: child.pipe.fileHandleForReading.availableData, as: UTF8.self)
        }
        XCTAssertTrue(output.contains("READY"), output)
        kill(child.process.processIdentifier, SIGKILL)
        child.process.waitUntilExit()
        let directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let prefix = "larder-\(child.process.processIdentifier)-" // in-memory files are named by pid
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(prefix) }
        XCTAssertEqual(left, [])
        for name in left { unlink("\(directory)/\(name)") }
    }

    func testAnInMemoryRealmIsSharedByTheInstancesOfItsProcess() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "shared-\(UUID().uuidString)", objectTypes: [Dog.self])
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
        onAnotherThread {
            let other = try Realm(configuration: configuration)
            XCTAssertEqual(other.objects(Dog.self).first?.name, "Rex")
            try other.write { other.add(Dog()) }
        }
        realm.refresh()
        XCTAssertEqual(realm.objects(Dog.self).count, 2)
    }
}
