import CLarder
import Foundation

extension Realm {
    /// An error thrown by opening a Realm or by a write transaction, with Realm's codes.
    public struct Error: LocalizedError, Equatable, CustomStringConvertible {
        public enum Code: Int, Sendable {
            case fail = 1, fileAccess = 2, filePermissionDenied = 3, fileExists = 4, fileNotFound = 5
            case fileFormatUpgradeRequired = 6, incompatibleLockFile = 8, addressSpaceExhausted = 9
            case schemaMismatch = 10, alreadyOpen = 12, invalidInput = 13, outOfDiskSpace = 14
            case unsupportedFileFormatVersion = 16, fileOperationFailed = 19, invalidDatabase = 20
        }

        public let code: Code
        public let message: String

        public init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        public var errorDescription: String? { message }
        public var description: String { "Realm.Error(\(code)): \(message)" }

        public static let fail = Code.fail
        public static let fileAccess = Code.fileAccess
        public static let fileNotFound = Code.fileNotFound
        public static let filePermissionDenied = Code.filePermissionDenied
        public static let schemaMismatch = Code.schemaMismatch
        public static let invalidDatabase = Code.invalidDatabase
        public static let unsupportedFileFormatVersion = Code.unsupportedFileFormatVersion
        public static let alreadyOpen = Code.alreadyOpen
        public static let fileOperationFailed = Code.fileOperationFailed


        /// The error the C core recorded for its last failing call on this thread.
        static func last(_ rc: Int32, context: String = "") -> Realm.Error {
            let message = String(cString: lar_error_last().pointee.message)
            let text = context.isEmpty ? message : "\(context): \(message)"
            switch rc {
            case LAR_ENOTLARDER: return Realm.Error(.invalidDatabase, text)
            case LAR_EVERSION: return Realm.Error(.unsupportedFileFormatVersion, text)
            case LAR_ESCHEMA: return Realm.Error(.schemaMismatch, "Migration is required due to the following errors: \(message)")
            case LAR_EREADONLY: return Realm.Error(.filePermissionDenied, text)
            case LAR_EMAPFULL: return Realm.Error(.outOfDiskSpace, text)
            case LAR_ENOMEM: return Realm.Error(.addressSpaceExhausted, text)
            case LAR_EIO: return Realm.Error(.fileAccess, text)
            case LAR_EINVAL, LAR_ETYPE: return Realm.Error(.invalidInput, text)
            default: return Realm.Error(.fail, text)
            }
        }
    }
}

/// Lets `catch Realm.Error.fileNotFound` match by code, as with Realm's errors.
public func ~= (code: Realm.Error.Code, error: Swift.Error) -> Bool {
    (error as? Realm.Error)?.code == code
}

/// Stops the program with the C core's message: for failures Realm reports as exceptions.
func fatalCoreError(_ rc: Int32, _ context: String) -> Never {
    fatalError("\(context): \(String(cString: lar_error_last().pointee.message)) (\(rc))")
}
