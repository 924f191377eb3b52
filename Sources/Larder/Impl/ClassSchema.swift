@_spi(Reflection) import Swift
import CLarder
import Foundation

/// One persisted property of a Swift model class.
struct PropertySchema {
    let name: String
    let valueType: any _Persistable.Type
    let isPrimaryKey: Bool
    let isIndexed: Bool
    /// `@Persisted(cascadeDelete: true)`: deleting the object deletes what this property links to.
    var isCascading = false
    /// The stored name of the class a link of a `DynamicObject`'s class points to
    /// (its valueType names only `DynamicObject`); nil for model classes' properties.
    var dynamicTarget: String? = nil

    var type: lar_type { valueType._larderType }
    /// As Realm: a link to one object and a map's object values are always
    /// optional, also those of a non-optional custom type stored as an embedded object.
    var isOptional: Bool {
        valueType._larderIsOptional || (type == LAR_TYPE_LINK && collection != LAR_COLLECTION_LIST &&
                                        collection != LAR_COLLECTION_SET)
    }
    /// The class a link points to; nil for other properties.
    var targetClass: Object.Type? { valueType._larderTargetClass }
    /// The name of the class a link points to, as the file stores it.
    var targetClassName: String? { dynamicTarget ?? targetClass?.className() }
    var collection: lar_collection { valueType._larderCollection }
    var isCollection: Bool { collection != LAR_COLLECTION_NONE }
}

/// A LinkingObjects property: the objects of origin whose originProperty links here.
struct LinkingObjectsSchema {
    let name: String
    let valueType: any _Persistable.Type
    let origin: Object.Type
    let originProperty: String
}

/// The schema of a Swift model class, discovered once by reflecting on the class.
// Unchecked: `linkingObjects`, its one var, is set in `discover` before the schema is
// published (under `lock`) and never after.
final class ClassSchema: @unchecked Sendable {
    let type: Object.Type
    let name: String
    /// In slot order: each class's own properties in declaration order, a
    /// subclass's before its superclass's (the order Swift initializes them).
    let properties: [PropertySchema]
    /// Where each property's wrapper sits in an object, in slot order.
    let fields: [FieldLayout]
    let slotByName: [String: Int]
    let primaryKeySlot: Int?

    /// A schema of a class of the file, not of a model class: `DynamicObject`'s.
    let isDynamic: Bool

    /// Slots in the order the file stores them, as Realm lists them: a
    /// superclass's properties before its subclass's.
    let storedOrder: [Int]

    private init(type: Object.Type, name: String? = nil, properties: [PropertySchema], fields: [FieldLayout],
                 storedOrder: [Int], isEmbedded: Bool? = nil, embeddedLink: [Bool]? = nil) {
        self.type = type
        isDynamic = type == DynamicObject.self
        self.storedOrder = storedOrder
        self.name = name ?? type.className()
        self.properties = properties
        self.fields = fields
        var slots: [String: Int] = [:]
        for (slot, property) in properties.enumerated() { slots[property.name] = slot }
        slotByName = slots
        primaryKeySlot = properties.firstIndex { $0.isPrimaryKey }
        linkSlots = properties.indices.filter {
            (properties[$0].targetClass != nil || properties[$0].type == LAR_TYPE_MIXED) && !properties[$0].isCollection
        }
        collectionSlots = properties.indices.filter { properties[$0].isCollection }
        hasRelations = !linkSlots.isEmpty || !collectionSlots.isEmpty
        linkSlotMask = SlotMask(linkSlots)
        hasCascades = properties.contains { $0.isCascading }
        self.isEmbedded = isEmbedded ?? (type is EmbeddedObject.Type)
        let embeddedLink = embeddedLink ?? properties.map { !$0.isMixed && $0.targetClass is EmbeddedObject.Type }
        self.embeddedLink = embeddedLink
        relatesByEmbeddedLinksOnly = collectionSlots.isEmpty && !linkSlots.isEmpty && !linkSlotMask.overflowed &&
            linkSlots.allSatisfy { embeddedLink[$0] }
    }

    /// A class of the file as `DynamicObject` reads it: its stored properties (linking
    /// objects aside), in stored order, with Swift value types chosen from their stored types.
    convenience init(dynamic properties: [PropertySchema], name: String, isEmbedded: Bool, embeddedLink: [Bool]) {
        self.init(type: DynamicObject.self, name: name, properties: properties, fields: [],
                  storedOrder: Array(properties.indices), isEmbedded: isEmbedded, embeddedLink: embeddedLink)
    }

    /// An `EmbeddedObject` class: its objects live inside the one object that links to them.
    let isEmbedded: Bool
    /// By slot: whether the property links to an embedded class (to one, or a list or map of them).
    let embeddedLink: [Bool]

    /// Slots of link properties, and of mixed ones (which may hold a link).
    let linkSlots: [Int]
    /// Slots of List, MutableSet and Map properties.
    let collectionSlots: [Int]
    /// Whether the class has links or collections: most have neither, and their adds skip that work.
    let hasRelations: Bool
    /// linkSlots as a mask (overflowed for a link slot of 64 or more).
    let linkSlotMask: SlotMask
    /// Whether the class's only relations are to-one links to embedded objects, all of
    /// slots below 64 (Realm's usual `@Persisted var address: Address?`).
    let relatesByEmbeddedLinksOnly: Bool
    /// Whether a property cascades deletes: deleting an object may then delete objects of other classes.
    let hasCascades: Bool

    /// This class and every class its links reach, which the file needs declared together.
    var withLinkedClasses: [ClassSchema] {
        var found = [self]
        var names: Set<String> = [name]
        var index = 0
        while index < found.count {
            for property in found[index].properties {
                guard property.dynamicTarget == nil, let target = property.targetClass,
                      !names.contains(target.className()) else { continue }
                names.insert(target.className())
                found.append(ClassSchema.of(target))
            }
            index += 1
        }
        return found
    }

    private static let lock = NSLock()
    // Safe: read and written only under `lock`.
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
        let found = persistedFields(of: type)
        // Options are values of the wrappers: read them from an accessor, which
        // evaluates no initial value.
        let prototype = AccessorConstruction.make(type)
        let legacyKey = type.primaryKey()
        let legacyIndexed = Set(type.indexedProperties())
        let properties = found.map { name, field, _ in
            let options = prototype.options(of: field)
            return PropertySchema(name: name, valueType: field.valueType,
                                  isPrimaryKey: options.contains(.primaryKey) || name == legacyKey,
                                  isIndexed: options.contains(.indexed) || legacyIndexed.contains(name),
                                  isCascading: options.contains(.cascadeDelete))
        }
        // Slots list a subclass's properties first; the file lists the superclass's first.
        let storedOrder = found.indices.sorted { found[$0].depth != found[$1].depth ? found[$0].depth > found[$1].depth : $0 < $1 }
        let schema = ClassSchema(type: type, properties: properties, fields: found.map(\.field), storedOrder: storedOrder)
        schema.linkingObjects = linkingObjects(of: type, prototype: prototype)
        return schema
    }

    /// The class's LinkingObjects properties: computed, so not among `properties`.
    private(set) var linkingObjects: [LinkingObjectsSchema] = []

    /// The `@Persisted(originProperty:)` wrappers of type, read from an accessor (whose wrappers hold their origin).
    private static func linkingObjects(of type: Object.Type, prototype: Object) -> [LinkingObjectsSchema] {
        var found: [LinkingObjectsSchema] = []
        _forEachField(of: type, options: .classFieldsIgnoringUnknown) { label, offset, fieldType, _ in
            let name = String(cString: label)
            guard name.hasPrefix("_"), let wrapper = fieldType as? any PersistedField.Type, wrapper.valueType._larderIsComputed,
                  let origin = wrapper.valueType._larderTargetClass else { return true }
            let field = FieldLayout(offset: offset, type: wrapper)
            guard case .string(let property) = prototype.storedValue(at: field) else { return true }
            found.append(LinkingObjectsSchema(name: String(name.dropFirst()), valueType: wrapper.valueType,
                                              origin: origin, originProperty: property))
            return true
        }
        return found
    }

    /// Realm's message for a model class without persisted properties, which it refuses.
    var noPropertiesMessage: String {
        "No properties are defined for '\(name)'. Did you remember to mark them with '@objc' or '@Persisted' in your model?"
    }

    /// The `@Persisted` wrappers of type (stored as `_name`), in slot order, with how many
    /// superclasses up each was declared.
    private static func persistedFields(of type: Object.Type) -> [(name: String, field: FieldLayout, depth: Int)] {
        var ordered: [(name: String, field: FieldLayout, depth: Int)] = []
        var current: AnyClass? = type
        var depth = 0
        while let cls = current, cls != Object.self, cls != EmbeddedObject.self {
            let parent: AnyClass? = _getSuperclass(cls)
            // A class's fields list its superclasses' first: keep only its own.
            let inherited = parent.map { persistedFieldsDeclared(in: $0).count } ?? 0
            ordered += persistedFieldsDeclared(in: cls).dropFirst(inherited).map { ($0.name, $0.field, depth) }
            current = parent
            depth += 1
        }
        return ordered
    }

    /// The wrappers of cls and its superclasses, superclasses first, as the runtime lays them out.
    private static func persistedFieldsDeclared(in cls: AnyClass) -> [(name: String, field: FieldLayout)] {
        var found: [(name: String, field: FieldLayout)] = []
        _forEachField(of: cls, options: .classFieldsIgnoringUnknown) { label, offset, fieldType, _ in
            let name = String(cString: label)
            // Computed properties (LinkingObjects) are no part of the stored schema.
            if name.hasPrefix("_"), let wrapper = fieldType as? any PersistedField.Type, !wrapper.valueType._larderIsComputed {
                found.append((String(name.dropFirst()), FieldLayout(offset: offset, type: wrapper)))
            }
            return true
        }
        return found
    }

    /// The C description of this class; valid while body runs.
    func withClassDef<R>(_ body: (lar_class_def) -> R) -> R {
        let names = properties.map { strdup($0.name)! }
        let targets = properties.map { $0.targetClassName.map { strdup($0)! } }
        let className = strdup(name)!
        defer {
            names.forEach { free($0) }
            targets.forEach { free($0) }
            free(className)
        }
        let defs = storedOrder.map { index -> lar_property_def in
            let property = properties[index]
            var flags: UInt32 = 0
            if property.isOptional { flags |= LAR_PROP_OPTIONAL }
            if property.isPrimaryKey { flags |= LAR_PROP_PRIMARY_KEY }
            if property.isIndexed && !property.isPrimaryKey { flags |= LAR_PROP_INDEXED }
            if property.isCascading { flags |= LAR_PROP_CASCADE }
            return lar_property_def(name: names[index], type: property.type, collection: property.collection,
                                    flags: flags, target_class: targets[index], origin_property: nil)
        }
        return defs.withUnsafeBufferPointer { buffer in
            body(lar_class_def(name: className, properties: buffer.baseAddress, property_count: buffer.count,
                               flags: isEmbedded ? LAR_CLASS_EMBEDDED : 0))
        }
    }
}

extension _EachFieldOptions {
    /// `[.classType, .ignoreUnknown]`, built from their raw values: the standard library
    /// declares those as mutable statics, which Swift 6 refuses to read from a nonisolated context.
    static var classFieldsIgnoringUnknown: _EachFieldOptions { _EachFieldOptions(rawValue: 1 << 0 | 1 << 1) }
}
