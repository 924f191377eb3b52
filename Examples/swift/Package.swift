// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "LarderDemo",
    dependencies: [.package(name: "Larder", path: "../..")],
    targets: [
        .executableTarget(name: "LarderDemo", dependencies: [.product(name: "Larder", package: "Larder")],
                          path: "Sources/LarderDemo"),
    ]
)
