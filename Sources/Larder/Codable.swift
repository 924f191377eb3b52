import Foundation

// Codable models, as in Realm: a class that declares `Codable` gets the
// compiler's synthesized coding, which encodes and decodes each `@Persisted`
// wrapper under its property's name.
//
//     final class Dog: Object, Codable {
//         @Persisted var name = ""
//         @Persisted var owner: Person?
//         @Persisted var tags: List<String>
//     }
//
// - Decoding makes an unmanaged object, ready for `realm.add`. An optional
//   property whose key is missing decodes as nil.
// - Only unmanaged objects encode: a managed object's wrappers hold no values,
//   so encoding one throws Realm's `EncodingError.invalidValue`. A model that
//   must encode while managed writes its own `encode(to:)`.
// - List and MutableSet code as arrays, Map as a dictionary (keyed object);
//   Results and AnyRealmCollection encode as arrays. ObjectId and Decimal128
//   code as strings (Decimal128 also decodes from a number); Date, Data and UUID
//   as Foundation codes them.
// - LinkingObjects, computed from other objects' links, is not Codable, as in
//   Realm: a model with one lists its `CodingKeys` without it.

extension Persisted: Encodable where Value: Encodable {
    /// The value of an unmanaged object's property; a managed object's throws.
    public func encode(to encoder: Encoder) throws {
        guard slot < 0 else {
            throw EncodingError.invalidValue(self, EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "Only unmanaged Realm objects can be encoded using automatic Codable synthesis. " +
                    "You must explicitly define encode(to:) on your model class to support managed Realm objects."))
        }
        // Through a container, so that the encoder's strategies for dates and data apply.
        var container = encoder.singleValueContainer()
        try container.encode(Value._larderFrom(value) ?? Value._larderDefault())
    }
}

extension Persisted: Decodable where Value: Decodable {
    public init(from decoder: Decoder) throws {
        // Through a container, so that the decoder's strategies for dates and data apply.
        self.init(value: try decoder.singleValueContainer().decode(Value.self)._larderStored, options: [])
    }
}

/// A property wrapper whose value may be nil: a keyed container decodes it as
/// nil when its key is missing. Not part of the API.
public protocol OptionalCodingWrapper {
    /// The wrapper holding nil.
    init(_larderNilForMissingKey: Void)
}

extension Persisted: OptionalCodingWrapper where Value: ExpressibleByNilLiteral {
    public init(_larderNilForMissingKey: Void) {
        self.init(value: .null, options: [])
    }
}

extension KeyedDecodingContainer {
    /// Chosen over the standard `decode` for `@Persisted` optionals, which the
    /// synthesized `init(from:)` decodes: a missing key (or null) gives nil
    /// where the standard one throws `keyNotFound`.
    public func decode<T: Decodable & OptionalCodingWrapper>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? T(_larderNilForMissingKey: ())
    }
}

// MARK: Collections

extension List: Encodable where Element: Encodable {
    /// The elements, in order, as an array.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension List: Decodable where Element: Decodable {
    /// An unmanaged list of the array's elements.
    public convenience init(from decoder: Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { append(try container.decode(Element.self)) }
    }
}

extension MutableSet: Encodable where Element: Encodable {
    /// The elements as an array.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension MutableSet: Decodable where Element: Decodable {
    /// An unmanaged set of the array's elements; repeated ones count once.
    public convenience init(from decoder: Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { insert(try container.decode(Element.self)) }
    }
}

/// A map key, or any string, as a coding key.
private struct MapCodingKey: CodingKey {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { return nil }
}

extension Map: Encodable where Value: Encodable {
    /// The entries as a keyed object (a dictionary).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: MapCodingKey.self)
        for (key, value) in self { try container.encode(value, forKey: MapCodingKey(stringValue: key._larderKey)) }
    }
}

extension Map: Decodable where Value: Decodable {
    /// An unmanaged map of the keyed object's entries.
    public convenience init(from decoder: Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: MapCodingKey.self)
        for key in container.allKeys {
            updateValue(try container.decode(Value.self, forKey: key), forKey: Key(_larderKey: key.stringValue))
        }
    }
}

extension Results: Encodable where Element: Encodable {
    /// The objects as an array: each must encode while managed (its own `encode(to:)`).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension AnyRealmCollection: Encodable where Element: Encodable {
    /// The objects as an array, as `Results` encodes them.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}
