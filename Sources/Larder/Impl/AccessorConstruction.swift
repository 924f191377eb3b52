import CLarderSwift

/// Builds managed accessors without evaluating their properties' initial values.
///
/// An accessor is an instance of the model class, so building one runs the
/// class's initializers. While this thread builds one, its `@Persisted` wrappers
/// skip their initial values: an accessor reads the database, and an initial
/// value may be costly or have side effects (a generated id, a counter).
@usableFromInline
enum AccessorConstruction {
    @inlinable
    static var isActive: Bool { larder_swift_accessor_class_get() != nil }

    /// A new instance of type that evaluated no initial value.
    static func make(_ type: Object.Type) -> Object {
        let outer = larder_swift_accessor_class_get()
        larder_swift_accessor_class_set(unsafeBitCast(type, to: UnsafeRawPointer.self))
        defer { larder_swift_accessor_class_set(outer) }
        return type.init()
    }

    /// Called by `Object.init` while an accessor is being built. An object of
    /// another class was built on the way, by the accessor's initializer (a
    /// property that is not persisted, say): it is unmanaged and needs its
    /// initial values, which its wrappers skipped. A twin built normally
    /// evaluates them. (One of the accessor's own class cannot be told from the
    /// accessor: it keeps Realm's defaults for its type, 0, "" or nil.)
    static func objectDidInitialize(_ object: Object) {
        let type = Swift.type(of: object)
        if larder_swift_accessor_class_get() == unsafeBitCast(type, to: UnsafeRawPointer.self) { return }
        let outer = larder_swift_accessor_class_get()
        larder_swift_accessor_class_set(nil)
        defer { larder_swift_accessor_class_set(outer) }
        let twin = type.init()
        let schema = type.schema
        object.setUnmanagedValues(twin.unmanagedValues(schema), schema)
    }
}
