import XCTest
@testable import Larder

/// Misuse stops the program with Realm's message, as Realm raises an exception.
final class TrapTests: RealmTestCase {
    private func assertTraps(_ scenario: String, message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let outcome = try ChildProcess.run(scenario, argument: fileURL.path)
        XCTAssertTrue(outcome.trapped, "scenario \(scenario) did not trap", file: file, line: line)
        XCTAssertTrue(outcome.output.contains(message), "scenario \(scenario) printed: \(outcome.output)",
                      file: file, line: line)
    }

    func testSettingAPropertyOutsideAWriteTraps() throws {
        try assertTraps("set-outside-write", message: "Attempting to modify object outside of a write transaction")
    }

    func testReadingADeletedObjectTraps() throws {
        try assertTraps("read-deleted", message: "Object has been deleted or invalidated.")
        // Its row was in the read cache just before the delete.
        try assertTraps("read-deleted-cached", message: "Object has been deleted or invalidated.")
        // Its key was taken by a new object with its primary key.
        try assertTraps("read-replaced", message: "Object has been deleted or invalidated.")
    }

    /// A lookup by a key of the wrong type names the key as given (the Int fast path never boxes it).
    func testLookingUpABadPrimaryKeyTraps() throws {
        try assertTraps("primary-key-of-wrong-type", message: "Invalid value 'three' of type 'String' for primary key of 'Person'")
        try assertTraps("primary-key-of-class-without-one", message: "'Dog' does not have a primary key")
    }

    func testAddingOutsideAWriteTraps() throws {
        try assertTraps("add-outside-write", message: "Can only add, remove, or create objects in a Realm in a write transaction")
    }

    func testChangingAPrimaryKeyTraps() throws {
        try assertTraps("change-primary-key", message: "Primary key can't be changed after an object is inserted.")
    }

    func testAssigningAnEqualPrimaryKeyTraps() throws {
        for scenario in ["equal-primary-key-property", "equal-primary-key-subscript", "equal-primary-key-kvc"] {
            try assertTraps(scenario, message: "Primary key can't be changed after an object is inserted.")
        }
    }

    func testAnIntegerOutOfItsPropertysRangeTraps() throws {
        for scenario in ["int8-out-of-range-init", "int8-out-of-range-setvalue", "int8-out-of-range-create"] {
            try assertTraps(scenario, message: "Invalid value '300' of type")
            try assertTraps(scenario, message: "for 'int8' property")
        }
    }

    func testAnUnknownEnumRawValueTraps() throws {
        try assertTraps("unknown-enum-raw-value", message: "Invalid value 'furious' of type 'String' for 'mood' property")
    }

    func testReadingAnUnknownStoredRawValueOfAnEnumTraps() throws {
        try assertTraps("unknown-stored-enum-raw-value", message: "Could not convert value 'furious' to type 'Mood'.")
    }

    func testUsingAnObjectOnAnotherThreadTraps() throws {
        try assertTraps("wrong-thread", message: "Realm accessed from incorrect thread.")
    }

    /// Every entry point checks the thread, also while the owner has a read open and a row cached.
    func testEveryEntryPointTrapsOnAnotherThread() throws {
        for entryPoint in ["objects", "count", "first", "iterate", "subscript", "object-for-key", "is-invalidated",
                           "cached-read", "is-empty"] {
            try assertTraps("other-thread-\(entryPoint)", message: "Realm accessed from incorrect thread.")
        }
    }

    func testNestedWriteTraps() throws {
        try assertTraps("nested-write", message: "The Realm is already in a write transaction")
    }
}
