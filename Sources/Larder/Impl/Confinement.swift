import CLarderSwift

/// Runs body as if on the thread (or queue, or actor) token stands for: Realm
/// instances made inside belong to it, and those of that token may be used. Queue
/// delivery runs each callback inside the queue's observation's token.
func withConfinement<Result>(_ token: UnsafeRawPointer, _ body: () throws -> Result) rethrows -> Result {
    let previous = larder_swift_confinement_override_get()
    larder_swift_confinement_override_set(token)
    defer { larder_swift_confinement_override_set(previous) }
    return try body()
}
