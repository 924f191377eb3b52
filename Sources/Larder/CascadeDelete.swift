import CLarder

/// The property types that can own the objects they link to: an optional
/// object (`Dog?`), a `List` or `MutableSet` of objects, a `Map` of optional
/// objects. `@Persisted(cascadeDelete:)` is available only for them, so asking
/// for a cascade on any other property does not compile.
/// Conformances come with Larder; do not conform your own types.
public protocol _CascadeDeletable: _Persistable {}

extension Optional: _CascadeDeletable where Wrapped: Object {}
extension List: _CascadeDeletable where Element: Object {}
extension MutableSet: _CascadeDeletable where Element: Object {}
extension Map: _CascadeDeletable where Value: _CascadeDeletable {}

extension Persisted where Value: _CascadeDeletable {
    /// A link property that owns its objects (beyond Realm, which has no such option):
    ///
    ///     class Person: Object {
    ///         @Persisted(cascadeDelete: true) var dogs: List<Dog>
    ///         @Persisted(cascadeDelete: true) var toy: DogToy?
    ///     }
    ///
    /// Deleting a person then deletes, in the same write, the dogs and the toy it
    /// links to, and what they own in turn through their own cascading properties,
    /// unless a cascading property of an object that is not being deleted still
    /// links to them. Plain links do not own: an object they also reach is
    /// deleted, and they become nil (or lose it), as with any delete. Cycles end.
    /// The option is stored in the file's schema; adding or removing it is a
    /// schema change, as making a property optional is.
    @inlinable
    public init(cascadeDelete: Bool) {
        self.init(wrappedValue: Value._larderDefault(), cascadeDelete: cascadeDelete)
    }

    @inlinable
    public init(wrappedValue: @autoclosure () -> Value, cascadeDelete: Bool) {
        self.init(value: AccessorConstruction.isActive ? .null : wrappedValue()._larderStored,
                  options: cascadeDelete ? .cascadeDelete : [])
    }
}
