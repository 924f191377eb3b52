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

    /// The query format describes on objects of schema's class cls, with args bound:
    /// the same format parsed before (kept in environment's pool) or parsed now;
    /// traps with the core's message when the text or an argument is invalid.
    static func parse(_ format: String, _ args: [Any?], environment: Environment, cls: lar_class,
                      schema: ClassSchema) -> QueryHandle {
        parse(format, args, environment: environment, subject: .objects(cls), linkingObjects: schema.linkingObjects)
    }

    /// The same for any subject; linkingObjects: the properties the text may name by
    /// their Swift names (none for a query over values).
    static func parse(_ format: String, _ args: [Any?], environment: Environment, subject: QuerySubject,
                      linkingObjects: [LinkingObjectsSchema] = []) -> QueryHandle {
        let (slot, idle) = environment.queryPool.take(.text(subject, format))
        let handle: QueryHandle
        if let query = idle {
            handle = QueryHandle(query, environment: environment, slot: slot)
        } else {
            guard let query = subject.parse(environment.handle, naming(linkingObjects, in: format)) else {
                QueryHandle.invalidQuery()
            }
            handle = QueryHandle(query, environment: environment, slot: slot)
        }
        var expected = 0
        lar_query_argument_count(handle.pointer, &expected)
        if expected != args.count {
            fatalError("Invalid query: the query takes \(expected) argument\(expected == 1 ? "" : "s"), \(args.count) given")
        }
        let keyPaths = args.isEmpty ? [] : keyPathPositions(in: format)
        let arguments = args.enumerated().map { index, value in
            QueryArgument(value, keyPath: index < keyPaths.count && keyPaths[index]).naming(linkingObjects)
        }
        let rc = withCArguments(arguments) { lar_query_bind(handle.pointer, $0, $1) }
        if rc != LAR_OK { QueryHandle.invalidQuery() }
        return handle
    }

    /// The C core's schema has no LinkingObjects properties (they are Swift's):
    /// a key path that begins with one names its backlink, `@links.<Origin>.<property>`.
    /// Quoted text, and names after '.', '$', '@' or '%', are left alone.
    static func naming(_ linkingObjects: [LinkingObjectsSchema], in text: String) -> String {
        if linkingObjects.isEmpty { return text }
        var out = ""
        var quote: Character?
        var escaped = false
        var previous: Character = " "
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character.isLetter || character == "_", !(previous.isLetter || previous.isNumber || "_.$@%".contains(previous)) {
                let end = text[index...].firstIndex { !($0.isLetter || $0.isNumber || $0 == "_") } ?? text.endIndex
                let word = text[index..<end]
                if let linking = linkingObjects.first(where: { $0.name == word }), end == text.endIndex || text[end] != "(" {
                    out += "@links.\(linking.origin.className()).\(linking.originProperty)"
                } else {
                    out += word
                }
                previous = text[text.index(before: end)]
                index = end
                continue
            }
            out.append(character)
            previous = character
            index = text.index(after: index)
        }
        return out
    }

    /// A `%K` key path that begins with a LinkingObjects property names its backlink.
    private func naming(_ linkingObjects: [LinkingObjectsSchema]) -> QueryArgument {
        guard case .keyPath(let path) = self else { return self }
        return .keyPath(QueryArgument.naming(linkingObjects, in: path))
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
