import Foundation
import TestSupport

/// The built `tagrouter` binary, run to its end as a user would; a run longer than 20 s is killed and fails.
enum Tool {
    static func run(_ arguments: [String], stdin: Data = Data()) async throws -> ToolRun {
        try await ToolRun(BuiltProducts.tagrouter.path, arguments, stdin: [UInt8](stdin), timeout: .seconds(20))
    }
}
