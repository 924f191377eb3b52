import CLarder

/// The classes of a Realm's file, as Realm's `Schema`: every class the file stores,
/// including those no model class of this program declares.
public struct Schema: CustomStringConvertible, Equatable, Sendable {
    /// One object schema per class, in the order the classes were added to the file.
    public let objectSchema: [ObjectSchema]

    init(objectSchema: [ObjectSchema]) {
        self.objectSchema = objectSchema
    }

    /// The schema of the class named className, or nil.
    public subscript(className: String) -> ObjectSchema? {
        objectSchema.first { $0.className == className }
    }

    public var description: String {
        let body = objectSchema.map { schema in
            schema.description.split(separator: "\n", omittingEmptySubsequences: false)
                .map { "\t" + $0 }.joined(separator: "\n")
        }
        return "Schema {\n" + body.map { $0 + "\n" }.joined() + "}"
    }

    /// The file's stored schema. Class ids count from 0 to the class count (the
    /// catalog's order); model classes are matched by name to objectClass.
    init(environment: Environment, modelClasses: [Object.Type]) {
        var info = lar_env_info()
        lar_env_info_get(environment.handle, &info)
        let byName = Dictionary(modelClasses.map { ($0.className(), $0 as AnyClass) }, uniquingKeysWith: { first, _ in first })
        var schemas: [ObjectSchema] = []
        for id in 0..<info.class_count {
            var classInfo = lar_class_info()
            guard lar_class_info_get(environment.handle, id, &classInfo) == LAR_OK, let name = classInfo.name else { continue }
            let objectClass: AnyClass = byName[String(cString: name)] ?? DynamicObject.self
            if let schema = ObjectSchema(stored: id, in: environment.handle, objectClass: objectClass) {
                schemas.append(schema)
            }
        }
        self.init(objectSchema: schemas)
    }
}
