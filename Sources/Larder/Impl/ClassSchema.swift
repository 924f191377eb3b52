import CLarder
import Foundation

/// One persisted property of a Swift model class.
struct PropertySchema {
    let name: String
    let valueType: any _Persistable.Type
    let isPrimaryKey: Bool
    let isIndexed: Bool

    var type: lar_type { valueType._larderType }
    var isOptional: Bool { valueType._larderIsOptional }
}

/// The schema of a Swift model class, discovered once by reflecting on an instance.
final class ClassSchema: @unchecked Sendable {
    let type: Object.Type
    let name: String
    /// In slot order: the order in which Swift initializes the wrappers.
    let properties: [PropertySchema]
    let slotByName: [String: Int]
    let primaryKeySlot: Int?

    /// Slots in the order the file stores them, as Realm lists them: a
    /// superclass's properties before its subclass's.
    let storedOrder: [Int]

    private init(type: Object.Type, properties: [PropertySchema], storedOrder: [Int]) {
        self.type = type
        self.storedOrder = storedOrder
        self.name = type.className()
        self.properties = properties
        var slots: [String: Int] = [:]
        for (slot, property) in properties.enumerated() { slots[property.name] = slot }
        slotByName = slots
        primaryKeySlot = properties.firstIndex { $0.isPrimaryKey }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var known: [ObjectIdentifier: ClassSchema] = [:]

    /// The schema of type, discovering it on first use.
    static func of(_ type: Object.Type) -> ClassSchema {
        lock.lock()
        let found = known[ObjectIdentifier(type)]
        lock.unlock()
        if let found { return found }
        let schema = discover(type)
        lock.lock()
        defer { lock.unlock() }
        if let raced = known[ObjectIdentifier(type)] { return raced }
        known[ObjectIdentifier(type)] = schema
        return schema
    }

    /// Every class discovered so far: the default schema of a Realm opened without objectTypes.
    static var all: [ClassSchema] {
        lock.lock()
        defer { lock.unlock() }
        return Array(known.values)
    }

    private static func discover(_ type: Object.Type) -> ClassSchema {
        let prototype = type.init()
        var found: [(slot: Int32, name: String, property: any PersistedProperty, depth: Int)] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        var depth = 0
        while let current = mirror {
            for child in current.children {
                guard let label = child.label, label.hasPrefix("_"),
                      let property = child.value as? any PersistedProperty else { continue }
                found.append((property.slot, String(label.dropFirst()), property, depth))
            }
            mirror = current.superclassMirror
            depth += 1
        }
        found.sort { $0.slot < $1.slot }
        let slotsInOrder = found.map(\.slot) == Array(0..<Int32(found.count))
        if !slotsInOrder || found.count != prototype.core.values.count {
            fatalError("Larder: the @Persisted properties of '\(type)' could not be laid out; a default " +
                       "value of one of them probably creates another Larder object, which is not supported")
        }
        let legacyKey = type.primaryKey()
        let legacyIndexed = Set(type.indexedProperties())
        let properties = found.map { item in
            PropertySchema(name: item.name, valueType: item.property.valueType,
                           isPrimaryKey: item.property.options.contains(.primaryKey) || item.name == legacyKey,
                           isIndexed: item.property.options.contains(.indexed) || legacyIndexed.contains(item.name))
        }
        // Swift initializes a subclass's properties before its superclass's, so
        // slots list the subclass first; the file lists the superclass first.
        let storedOrder = found.sorted { $0.depth != $1.depth ? $0.depth > $1.depth : $0.slot < $1.slot }.map { Int($0.slot) }
        return ClassSchema(type: type, properties: properties, storedOrder: storedOrder)
    }

    /// Realm's message for a model class without persisted properties, which it refuses.
    var noPropertiesMessage: String {
        "No properties are defined for '\(name)'. Did you remember to mark them with '@objc' or '@Persisted' in your model?"
    }

    /// The C description of this class; valid while body runs.
    func withClassDef<R>(_ body: (lar_class_def) -> R) -> R {
        let names = properties.map { strdup($0.name)! }
        let className = strdup(name)!
        defer {
            names.forEach { free($0) }
            free(className)
        }
        let defs = storedOrder.map { index -> lar_property_def in
            let property = properties[index]
            var flags: UInt32 = 0
            if property.isOptional { flags |= LAR_PROP_OPTIONAL }
            if property.isPrimaryKey { flags |= LAR_PROP_PRIMARY_KEY }
            if property.isIndexed && !property.isPrimaryKey { flags |= LAR_PROP_INDEXED }
            return lar_property_def(name: names[index], type: property.type, collection: LAR_COLLECTION_NONE,
                                    flags: flags, target_class: nil, origin_property: nil)
        }
        return defs.withUnsafeBufferPointer { buffer in
            body(lar_class_def(name: className, properties: buffer.baseAddress, property_count: buffer.count, flags: 0))
        }
    }
}
