import Larder

// Later versions of TestSupport's `Dog`, as an app update might declare them: each
// has the class name "Dog", so a file written with one is opened with the other.

/// `age` became a string.
enum RetypedAge {
    final class Dog: Object {
        @Persisted var name = ""
        @Persisted var age = ""
    }
}

/// `name` became the primary key.
enum KeyedByName {
    final class Dog: Object {
        @Persisted(primaryKey: true) var name = ""
        @Persisted var age = 0
    }
}

/// `age` was removed and `x` added.
enum Reshaped {
    final class Dog: Object {
        @Persisted var name = ""
        @Persisted var x = 0
    }
}

/// `name` became optional and indexed.
enum OptionalName {
    final class Dog: Object {
        @Persisted(indexed: true) var name: String?
        @Persisted var age = 0
    }
}

/// A model class with nothing to store, which Realm refuses.
final class Empty: Object {}

/// A model that inherits persisted properties from another model.
class Animal: Object {
    @Persisted var name = ""
}

final class Cat: Animal {
    @Persisted var lives = 9
}

/// `Dog.age` as a list, a set and a map of ints, and a link.
enum CollectionAge {
    final class Dog: Object {
        @Persisted var name = ""
        @Persisted var age: List<Int>
    }
}

enum LinkAge {
    final class Dog: Object {
        @Persisted var name = ""
        @Persisted var age: Dog?
    }
}
