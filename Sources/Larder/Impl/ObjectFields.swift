import CLarder

/// An object's `@Persisted` wrappers, reached through the byte offsets that its
/// class schema found: the unmanaged values, and the slots managed access uses.
extension Object {
    /// Calls body with the address of this object's start.
    private func withBase<R>(_ body: (UnsafeMutableRawPointer) -> R) -> R {
        withExtendedLifetime(self) { body(Unmanaged.passUnretained(self).toOpaque()) }
    }

    private func valuePointer(_ base: UnsafeMutableRawPointer, _ field: FieldLayout) -> UnsafeMutablePointer<_StoredValue> {
        (base + field.value).assumingMemoryBound(to: _StoredValue.self)
    }

    func options(of field: FieldLayout) -> PropertyOptions {
        withBase { $0.load(fromByteOffset: field.options, as: PropertyOptions.self) }
    }

    /// The value a wrapper holds, found by its layout.
    func storedValue(at field: FieldLayout) -> _StoredValue {
        withBase { valuePointer($0, field).pointee }
    }

    /// The unmanaged value of the property at slot.
    func unmanagedValue(slot: Int) -> _StoredValue {
        if let dynamic = self as? DynamicObject { return dynamic.unmanagedStore[slot] }
        let field = Self.schema.fields[slot]
        return withBase { valuePointer($0, field).pointee }
    }

    /// Sets the unmanaged value of the property at slot; value must be one of its values.
    func setUnmanagedValue(_ value: _StoredValue, slot: Int) {
        if let dynamic = self as? DynamicObject { return dynamic.unmanagedStore[slot] = value }
        let field = Self.schema.fields[slot]
        withBase { valuePointer($0, field).pointee = value }
    }

    /// Calls body with the C form of every unmanaged value, in slot order, read from the
    /// wrappers where they are. Not for a `DynamicObject`, whose values are in an array.
    func withUnmanagedCValues<R>(_ schema: ClassSchema, _ body: (UnsafeMutablePointer<lar_value>, Int) -> R) -> R {
        withBase { base in
            let fields = schema.fields
            return _StoredValue.withCValues(count: fields.count, at: { UnsafePointer(valuePointer(base, fields[$0])) }, body)
        }
    }

    /// The same, with the values of the slots in nulling as null. Kept apart from the one
    /// above: the mask test per value cost the plain insert 1.7% (callgrind).
    func withUnmanagedCValues<R>(_ schema: ClassSchema, nulling: SlotMask,
                                 _ body: (UnsafeMutablePointer<lar_value>, Int) -> R) -> R {
        withBase { base in
            withUnsafePointer(to: _StoredValue.null) { null in
                let fields = schema.fields
                return _StoredValue.withCValues(count: fields.count, at: {
                    nulling.contains($0) ? null : UnsafePointer(valuePointer(base, fields[$0]))
                }, body)
            }
        }
    }

    /// Every unmanaged value, in slot order.
    func unmanagedValues(_ schema: ClassSchema) -> ContiguousArray<_StoredValue> {
        if _slowPath(schema.isDynamic) { return (self as? DynamicObject)?.unmanagedStore ?? [] }
        return withBase { base in
            var values = ContiguousArray<_StoredValue>()
            values.reserveCapacity(schema.fields.count)
            for field in schema.fields { values.append(valuePointer(base, field).pointee) }
            return values
        }
    }

    func setUnmanagedValues(_ values: ContiguousArray<_StoredValue>, _ schema: ClassSchema) {
        if _slowPath(schema.isDynamic) {
            (self as? DynamicObject)?.unmanagedStore = values
            return
        }
        withBase { base in
            for (field, value) in zip(schema.fields, values) { valuePointer(base, field).pointee = value }
        }
    }

    /// Makes the object an accessor of a row: its wrappers learn their slots,
    /// and release the values they held while unmanaged. An object that was
    /// added keeps its primary key for hashing. stamp: the row's, when the caller read it.
    func bind(to realm: RealmInstance, table: ManagedClass, key: lar_objkey, added: Bool = false, stamp: UInt64? = nil) {
        if added, let slot = table.schema.primaryKeySlot {
            core.knownPrimaryKey = (key, withBase { valuePointer($0, table.schema.fields[slot]).pointee })
        }
        withBase { base in
            for (slot, field) in table.schema.fields.enumerated() {
                base.storeBytes(of: Int32(slot), toByteOffset: field.slot, as: Int32.self)
                let value = valuePointer(base, field)
                if !value.pointee.holdsNoReference { value.pointee = .null }
            }
        }
        if _slowPath(table.schema.isDynamic) { (self as? DynamicObject)?.didBecomeManaged() }
        core.bind(to: realm, table: table, key: key, stamp: stamp)
    }
}
