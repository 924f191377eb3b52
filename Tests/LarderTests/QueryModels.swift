import Foundation
import Larder

// Models for the query tests: every kind of key path a query can take.

final class QAddress: EmbeddedObject {
    @Persisted var city = ""
}

final class QOwner: Object {
    @Persisted var name = ""
    @Persisted var dogs: List<QDog>
    @Persisted var address: QAddress?
}

enum QMood: Int, PersistableEnum {
    case calm, excited
}

final class QDog: Object {
    @Persisted var name = ""
    @Persisted var breed = ""
    @Persisted var age = 0
    @Persisted var legs = 4
    @Persisted var weight: Double?
    @Persisted var alive = true
    @Persisted var born: Date?
    @Persisted var price: Decimal128
    @Persisted var data = Data()
    @Persisted var oid: ObjectId
    @Persisted var uid: UUID
    @Persisted var mood = QMood.calm
    @Persisted var optMood: QMood?
    @Persisted var nickname: String?
    @Persisted var owner: QOwner?
    @Persisted var tags: List<String>
    @Persisted var scores: MutableSet<Int>
    @Persisted var attrs: Map<String, String?>
    @Persisted var friends: List<QDog>
    // Second properties of a link's and a list's types: the probe tells them apart.
    @Persisted var walker: QOwner?
    @Persisted var rivals: List<QDog>
    @Persisted var extra: AnyRealmValue
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<QOwner>
}
