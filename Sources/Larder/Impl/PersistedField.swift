/// A `Persisted` wrapper seen without its value type, at its address inside an object.
///
/// Schema discovery finds each wrapper's byte offset once per class; adding an
/// object, building an accessor, `Object(value:)` and key-value coding then reach
/// the wrappers through these offsets, without reflection. The wrapper's fields
/// do not depend on its value type, so those paths run no generic code.
protocol PersistedField {
    static var valueType: any _Persistable.Type { get }
    /// Offsets of the wrapper's fields inside it.
    static var slotOffset: Int { get }
    static var optionsOffset: Int { get }
    static var valueOffset: Int { get }
}

extension Persisted: PersistedField {
    static var valueType: any _Persistable.Type { Value.self }
    static var slotOffset: Int { MemoryLayout<Self>.offset(of: \.slot)! }
    static var optionsOffset: Int { MemoryLayout<Self>.offset(of: \.options)! }
    static var valueOffset: Int { MemoryLayout<Self>.offset(of: \.value)! }
}

/// Where one persisted property's wrapper fields sit inside objects of its class,
/// in bytes from the start of the object.
struct FieldLayout {
    let valueType: any _Persistable.Type
    let slot: Int
    let options: Int
    let value: Int

    init(offset: Int, type: any PersistedField.Type) {
        valueType = type.valueType
        slot = offset + type.slotOffset
        options = offset + type.optionsOffset
        value = offset + type.valueOffset
    }
}
