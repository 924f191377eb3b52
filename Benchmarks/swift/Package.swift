// swift-tools-version:5.9
// LarderBench: Larder's Swift API against GRDB doing the same work, compared with
// the C benchmark's numbers. Run by `make bench` after bench_c, as `LarderBench <dir>`.
import PackageDescription

let package = Package(
    name: "LarderBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Larder", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "LarderBench",
            dependencies: [
                .product(name: "Larder", package: "Larder"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/LarderBench"
        ),
    ]
)
