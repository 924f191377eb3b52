import Foundation
import XCTest

/// Runs a scenario of `ChildScenarios` in a new process of this test binary, for
/// traps (which end the process) and for work another process must do.
enum ChildProcess {
    struct Outcome {
        let status: Int32
        let output: String
        var trapped: Bool { status != 0 }
    }

    static let scenarioVariable = "LARDER_CHILD_SCENARIO"
    static let argumentVariable = "LARDER_CHILD_ARGUMENT"

    static func run(_ scenario: String, argument: String = "") throws -> Outcome {
        try start(scenario, argument: argument).wait()
    }

    /// Starts the scenario without waiting for it.
    static func start(_ scenario: String, argument: String = "") throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["LarderTests.ChildScenarios/testRunScenario"]
        var environment = ProcessInfo.processInfo.environment
        environment[scenarioVariable] = scenario
        environment[argumentVariable] = argument
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        return Running(process: process, pipe: pipe)
    }

    struct Running {
        let process: Process
        let pipe: Pipe

        func wait() -> Outcome {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
        }
    }
}
