import CLarder
import Foundation

/// `filter(_ format: String, _ args: Any...)`: the text parsed by the C core and
/// Swift values bound to its `%@`, `%K` and `$n` arguments.
enum QueryArgument {
    case value(_StoredValue)
    case list([_StoredValue])
    case keyPath(String)

    /// The argument for value; keyPath: it fills a `%K`.
    init(_ value: Any?, keyPath: Bool) {
        if keyPath {
            guard let name = value as? String else {
                fatalError("Invalid query: the argument for %K must be a String key path, not \(value.map { "\(type(of: $0))" } ?? "nil")")
            }
            self = .keyPath(name)
            return
        }
        guard let value = QueryArgument.unwrapped(value) else { self = .value(.null); return }
        if let persistable = value as? any _Persistable, !(value is _LarderCollection) {
            let stored = persistable._larderStored
            QueryValues.checkQueryable(stored)
            self = .value(stored)
            return
        }
        if let number = value as? NSNumber { self = .value(QueryArgument.stored(number)); return }
        if let sequence = value as? any Sequence {
            self = .list(sequence.map { element -> _StoredValue in
                guard case .value(let stored) = QueryArgument(element, keyPath: false) else {
                    fatalError("Invalid query: a list argument holds \(type(of: element)), which is not a value")
                }
                return stored
            })
            return
        }
        fatalError("Invalid query: an argument of type \(type(of: value)) cannot be used in a query")
    }

    /// nil for nil, NSNull and an Optional holding none, else the value itself.
    private static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if value is NSNull { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return mirror.children.first.flatMap { unwrapped($0.value) } }
        return value
    }

    private static func stored(_ number: NSNumber) -> _StoredValue {
        let type = String(cString: number.objCType)
        if type == "d" || type == "f" { return .double(number.doubleValue) }
        if type == "c" || type == "B" { return .bool(number.boolValue) }
        return .int(number.int64Value)
    }

    /// Which positional arguments (`%@`, `%K`, in order) of format are `%K`; quoted text is skipped.
    static func keyPathPositions(in format: String) -> [Bool] {
        var positions: [Bool] = []
        var quote: Character?
        var escaped = false
        var previous: Character?
        for character in format {
            if let open = quote {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if previous == "%" && (character == "@" || character == "K") {
                positions.append(character == "K")
            }
            previous = quote == nil ? character : nil
        }
        return positions
    }

    /// The query format describes on objects of cls, with args bound; traps with
    /// the core's message when the text or an argument is invalid.
    static func parse(_ format: String, _ args: [Any?], env: OpaquePointer, cls: lar_class) -> QueryHandle {
        var query: OpaquePointer?
        if lar_query_parse(env, cls, format, &query) != LAR_OK { QueryHandle.invalidQuery() }
        let handle = QueryHandle(query!)
        var expected = 0
        lar_query_argument_count(query, &expected)
        if expected != args.count {
            fatalError("Invalid query: the query takes \(expected) argument\(expected == 1 ? "" : "s"), \(args.count) given")
        }
        let keyPaths = keyPathPositions(in: format)
        let arguments = args.enumerated().map { index, value in
            QueryArgument(value, keyPath: index < keyPaths.count && keyPaths[index])
        }
        let rc = withCArguments(arguments) { lar_query_bind(query, $0, $1) }
        if rc != LAR_OK { QueryHandle.invalidQuery() }
        return handle
    }

    /// Calls body with the C form of arguments; pointers live only during the call.
    private static func withCArguments(_ arguments: [QueryArgument],
                                       _ body: (UnsafePointer<lar_query_arg>?, Int) -> Int32) -> Int32 {
        let out = UnsafeMutableBufferPointer<lar_query_arg>.allocate(capacity: max(arguments.count, 1))
        defer { out.deallocate() }
        func fill(_ index: Int) -> Int32 {
            if index == arguments.count { return body(out.baseAddress, arguments.count) }
            var arg = lar_query_arg()
            switch arguments[index] {
            case .value(let value):
                return value.withCValue { pointer in
                    arg.kind = LAR_QUERY_ARG_VALUE
                    arg.value = pointer.pointee
                    out[index] = arg
                    return fill(index + 1)
                }
            case .list(let values):
                return _StoredValue.withCValues(values) { pointer, count in
                    arg.kind = LAR_QUERY_ARG_LIST
                    arg.list = UnsafePointer(pointer)
                    arg.list_count = count
                    out[index] = arg
                    return fill(index + 1)
                }
            case .keyPath(let name):
                return name.withCString { text in
                    arg.kind = LAR_QUERY_ARG_KEYPATH
                    arg.keypath = text
                    out[index] = arg
                    return fill(index + 1)
                }
            }
        }
        return fill(0)
    }
}
