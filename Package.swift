// swift-tools-version:5.9
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
        .target(name: "Larder", dependencies: ["CLarder", "CLarderSwift"], path: "Sources/Larder"),
        .testTarget(name: "LarderTests", dependencies: ["Larder"], path: "Tests/LarderTests"),
    ]
)
