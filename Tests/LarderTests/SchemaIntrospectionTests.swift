import CLarder
import Foundation
import XCTest
@testable import Larder

/// A subclass: the file stores a superclass's properties before its own.
class SchemaAnimal: Object {
    @Persisted var legs = 4
}

final class SchemaCat: SchemaAnimal {
    @Persisted var name = ""
}

/// Realm's schema introspection: `Realm.schema`, `Object.objectSchema`,
/// `ObjectSchema` and `Property`, read from the file and from model classes.
final class SchemaIntrospectionTests: RealmTestCase {
    func testRealmSchemaListsTheFilesClasses() throws {
        let realm = try openRealm([Dog.self, Person.self])
        let names = Set(realm.schema.objectSchema.map(\.className))
        XCTAssertEqual(names, ["Dog", "Person"])
        XCTAssertEqual(realm.schema["Dog"]?.className, "Dog")
        XCTAssertNil(realm.schema["Cat"])
        XCTAssertTrue(realm.schema["Dog"]?.objectClass == Dog.self)
        XCTAssertFalse(realm.schema["Dog"]!.isEmbedded)
        XCTAssertFalse(realm.schema["Dog"]!.isAsymmetric)
    }

    func testPropertiesOfASimpleClass() throws {
        let dog = try XCTUnwrap(try openRealm([Dog.self]).schema["Dog"])
        XCTAssertEqual(dog.properties.map(\.name), ["name", "age"])
        let name = try XCTUnwrap(dog["name"])
        XCTAssertEqual(name.type, .string)
        XCTAssertEqual(name.columnName, "name")
        XCTAssertFalse(name.isOptional)
        XCTAssertFalse(name.isIndexed)
        XCTAssertFalse(name.isPrimary)
        XCTAssertFalse(name.isArray)
        XCTAssertFalse(name.isSet)
        XCTAssertFalse(name.isMap)
        XCTAssertNil(name.objectClassName)
        XCTAssertEqual(dog["age"]?.type, .int)
        XCTAssertNil(dog["weight"])
        XCTAssertNil(dog.primaryKeyProperty)
    }

    func testPrimaryKeyIndexAndOptional() throws {
        let person = try XCTUnwrap(try openRealm([Person.self]).schema["Person"])
        XCTAssertEqual(person.primaryKeyProperty?.name, "id")
        XCTAssertEqual(person["id"]?.isPrimary, true)
        XCTAssertEqual(person["id"]?.isIndexed, true, "a primary key is indexed, as in Realm")
        XCTAssertEqual(person["city"]?.isIndexed, true)
        XCTAssertEqual(person["city"]?.isPrimary, false)
        XCTAssertEqual(person["nickname"]?.isOptional, true)
        XCTAssertEqual(person["name"]?.isOptional, false)
    }

    func testLegacyPrimaryKeyFunction() throws {
        XCTAssertEqual(LegacyUser.objectSchema.primaryKeyProperty?.name, "id")
        XCTAssertEqual(try openRealm([LegacyUser.self]).schema["LegacyUser"]?.primaryKeyProperty?.name, "id")
    }

    func testEveryScalarType() throws {
        let schema = try XCTUnwrap(try openRealm([AllTypes.self]).schema["AllTypes"])
        let expected: [(String, PropertyType)] = [
            ("_id", .objectId), ("int", .int), ("int8", .int), ("int16", .int), ("int32", .int), ("int64", .int),
            ("bool", .bool), ("float", .float), ("double", .double), ("string", .string), ("data", .data),
            ("date", .date), ("objectId", .objectId), ("uuid", .uuid), ("decimal", .decimal128), ("mood", .string),
        ]
        for (name, type) in expected {
            XCTAssertEqual(schema[name]?.type, type, name)
            XCTAssertEqual(schema[name]?.isOptional, false, name)
        }
        for name in ["optInt", "optBool", "optFloat", "optDouble", "optString", "optData", "optDate",
                     "optObjectId", "optUUID", "optDecimal", "optMood"] {
            XCTAssertEqual(schema[name]?.isOptional, true, name)
        }
        XCTAssertEqual(schema["optUUID"]?.type, .uuid)
        XCTAssertEqual(schema["optMood"]?.type, .string)
        XCTAssertEqual(schema.primaryKeyProperty?.name, "_id")
    }

    func testObjectSchemaOfAModelClassMatchesTheFile() throws {
        XCTAssertEqual(Dog.objectSchema.className, "Dog")
        XCTAssertEqual(Dog.objectSchema.properties.map(\.name), ["name", "age"])
        XCTAssertTrue(Dog.objectSchema.objectClass == Dog.self)
        let realm = try openRealm([Dog.self, Person.self, AllTypes.self])
        for type in [Dog.self, Person.self, AllTypes.self] as [Object.Type] {
            XCTAssertEqual(type.objectSchema, realm.schema[type.className()], type.className())
        }
    }

    func testObjectSchemaOfAnObjectManagedOrNot() throws {
        let dog = Dog()
        XCTAssertEqual(dog.objectSchema, Dog.objectSchema)
        let realm = try openRealm([Dog.self])
        try realm.write { realm.add(dog) }
        XCTAssertEqual(dog.objectSchema, realm.schema["Dog"])
        XCTAssertEqual(dog.objectSchema["age"]?.type, .int)
    }

    func testASubclassListsItsSuperclassesPropertiesFirst() throws {
        XCTAssertEqual(SchemaCat.objectSchema.properties.map(\.name), ["legs", "name"])
        let realm = try openRealm([SchemaCat.self])
        XCTAssertEqual(realm.schema["SchemaCat"]?.properties.map(\.name), ["legs", "name"])
    }

    /// A class no model of this program declares, with a link, lists, a set and a
    /// map, declared through the C API: `Realm.schema` reads it from the file.
    func testAFilesLinksAndCollectionsThroughTheCAPI() throws {
        var env: OpaquePointer?
        XCTAssertEqual(lar_env_open(fileURL.path, nil, &env), LAR_OK)
        let strings = ["Toy", "label", "Owner", "toy", "toys", "scores", "tags", "prices", "id"].map { (name: String) in strdup(name)! }
        defer { strings.forEach { free($0) } }
        let s = { (i: Int) in UnsafePointer(strings[i]) }
        let toyProps = [
            lar_property_def(name: s(1), type: LAR_TYPE_STRING, collection: LAR_COLLECTION_NONE, flags: 0,
                             target_class: nil, origin_property: nil),
        ]
        let ownerProps = [
            lar_property_def(name: s(8), type: LAR_TYPE_STRING, collection: LAR_COLLECTION_NONE,
                             flags: LAR_PROP_PRIMARY_KEY, target_class: nil, origin_property: nil),
            lar_property_def(name: s(3), type: LAR_TYPE_LINK, collection: LAR_COLLECTION_NONE, flags: LAR_PROP_OPTIONAL,
                             target_class: s(0), origin_property: nil),
            lar_property_def(name: s(4), type: LAR_TYPE_LINK, collection: LAR_COLLECTION_LIST, flags: 0,
                             target_class: s(0), origin_property: nil),
            lar_property_def(name: s(5), type: LAR_TYPE_INT, collection: LAR_COLLECTION_LIST, flags: LAR_PROP_OPTIONAL,
                             target_class: nil, origin_property: nil),
            lar_property_def(name: s(6), type: LAR_TYPE_STRING, collection: LAR_COLLECTION_SET, flags: 0,
                             target_class: nil, origin_property: nil),
            lar_property_def(name: s(7), type: LAR_TYPE_DOUBLE, collection: LAR_COLLECTION_MAP, flags: 0,
                             target_class: nil, origin_property: nil),
        ]
        toyProps.withUnsafeBufferPointer { toyBuffer in
            ownerProps.withUnsafeBufferPointer { ownerBuffer in
                let defs = [
                    lar_class_def(name: s(2), properties: ownerBuffer.baseAddress, property_count: ownerBuffer.count, flags: 0),
                    lar_class_def(name: s(0), properties: toyBuffer.baseAddress, property_count: toyBuffer.count, flags: 0),
                ]
                XCTAssertEqual(lar_schema_apply(env, defs, defs.count, 0), LAR_OK, String(cString: lar_error_last().pointee.message))
            }
        }
        XCTAssertEqual(lar_env_close(env), LAR_OK)

        let realm = try openRealm([Dog.self])
        XCTAssertEqual(Set(realm.schema.objectSchema.map(\.className)), ["Owner", "Toy", "Dog"])
        let owner = try XCTUnwrap(realm.schema["Owner"])
        XCTAssertTrue(owner.objectClass == DynamicObject.self, "no model class of this program is named Owner")
        XCTAssertEqual(owner.properties.map(\.name), ["id", "toy", "toys", "scores", "tags", "prices"])
        XCTAssertEqual(owner.primaryKeyProperty?.name, "id")
        XCTAssertEqual(owner.primaryKeyProperty?.type, .string)

        let toy = try XCTUnwrap(owner["toy"])
        XCTAssertEqual(toy.type, .object)
        XCTAssertEqual(toy.objectClassName, "Toy")
        XCTAssertTrue(toy.isOptional)
        XCTAssertFalse(toy.isArray || toy.isSet || toy.isMap)

        let toys = try XCTUnwrap(owner["toys"])
        XCTAssertEqual(toys.type, .object)
        XCTAssertEqual(toys.objectClassName, "Toy")
        XCTAssertTrue(toys.isArray)
        XCTAssertFalse(toys.isOptional)
        XCTAssertFalse(toys.isSet || toys.isMap)

        let scores = try XCTUnwrap(owner["scores"])
        XCTAssertEqual(scores.type, .int)
        XCTAssertTrue(scores.isArray)
        XCTAssertTrue(scores.isOptional)
        XCTAssertNil(scores.objectClassName)

        let tags = try XCTUnwrap(owner["tags"])
        XCTAssertEqual(tags.type, .string)
        XCTAssertTrue(tags.isSet)
        XCTAssertFalse(tags.isArray || tags.isMap)

        let prices = try XCTUnwrap(owner["prices"])
        XCTAssertEqual(prices.type, .double)
        XCTAssertTrue(prices.isMap)
        XCTAssertFalse(prices.isArray || prices.isSet)

        XCTAssertEqual(realm.schema["Toy"]?.properties.map(\.name), ["label"])
        XCTAssertTrue(owner.description.contains("\tobjectClassName = Toy;"), owner.description)
    }

    func testDescriptions() throws {
        XCTAssertEqual(PropertyType.int.description, "int")
        XCTAssertEqual(PropertyType.any.description, "mixed")
        XCTAssertEqual(PropertyType.objectId.rawValue, 10)
        XCTAssertEqual(PropertyType.object.rawValue, 7)
        let schema = Dog.objectSchema
        XCTAssertEqual(schema["age"]?.description, """
            age {
            \ttype = int;
            \tcolumnName = age;
            \tindexed = NO;
            \tisPrimary = NO;
            \tarray = NO;
            \tset = NO;
            \tdictionary = NO;
            \toptional = NO;
            }
            """)
        XCTAssertTrue(schema.description.hasPrefix("Dog {\n\tname {\n\t\ttype = string;\n"), schema.description)
        XCTAssertTrue(schema.description.hasSuffix("\t}\n}"), schema.description)
        let realm = try openRealm([Dog.self])
        XCTAssertTrue(realm.schema.description.hasPrefix("Schema {\n\tDog {\n"), realm.schema.description)
    }
}
