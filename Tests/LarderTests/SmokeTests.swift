import XCTest
@testable import Larder

final class SmokeTests: RealmTestCase {
    func testAddAndRead() throws {
        let realm = try openRealm()
        let dog = Dog()
        dog.name = "Rex"
        dog.age = 3
        try realm.write { realm.add(dog) }
        XCTAssertNotNil(dog.realm)
        XCTAssertEqual(dog.name, "Rex")
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
        XCTAssertEqual(realm.objects(Dog.self).first?.age, 3)
        try realm.write { dog.age = 4 }
        XCTAssertEqual(realm.objects(Dog.self)[0].age, 4)
        print(dog)
    }
}
