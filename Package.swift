// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Larder",
    products: [
        .library(name: "Larder", targets: ["Larder"]),
    ],
    targets: [
        // The C core, built from the top-level folders as they are.
        .systemLibrary(name: "CLMDB", path: "Sources/CLMDB", pkgConfig: "lmdb",
                       providers: [.apt(["liblmdb-dev"])]),
        .target(
            name: "CLarder",
            dependencies: ["CLMDB"],
            path: ".",
            sources: ["CCore"],
            publicHeadersPath: "include",
            cSettings: [.define("_GNU_SOURCE"), .headerSearchPath("CCore")],
            linkerSettings: [.linkedLibrary("lmdb"), .linkedLibrary("pthread")]
        ),
        .target(name: "CLarderSwift", dependencies: ["CLarder"], path: "Sources/CLarderSwift"),
        // Swift 6 language mode: complete concurrency checking of the library.
        .target(name: "Larder", dependencies: ["CLarder", "CLarderSwift"], path: "Sources/Larder",
                swiftSettings: [.swiftLanguageMode(.v6)]),
        // The tests share models and state between threads freely (as tests do): Swift 5 mode.
        .testTarget(name: "LarderTests", dependencies: ["Larder"], path: "Tests/LarderTests",
                    swiftSettings: [.swiftLanguageMode(.v5)]),
    ],
    swiftLanguageModes: [.v6]
)
