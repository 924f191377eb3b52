// swift-tools-version:6.0
import PackageDescription

// A client of Larder in Swift 6 language mode (complete concurrency checking), with
// warnings as errors: the actor and async patterns of Realm's documentation must
// compile cleanly. `make test-swift6` builds and runs it.
let package = Package(
    name: "Swift6Client",
    dependencies: [.package(name: "Larder", path: "../..")],
    targets: [
        .executableTarget(
            name: "Swift6Client",
            dependencies: [.product(name: "Larder", package: "Larder")],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-warnings-as-errors"])]
        ),
    ]
)
