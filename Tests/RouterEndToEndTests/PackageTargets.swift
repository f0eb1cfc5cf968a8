/// The modules Package.swift declares for the product (not under Tests/ or Benchmarks/: tests, benchmarks, the harness), each with
/// the names in its `dependencies:` and its folder. Read from the text: every `.target(`, `.executableTarget(` and
/// `.systemLibrary(` call, up to its closing parenthesis. The drawing and the layout table of docs/development/README.md
/// and scripts/fuzz.sh's module map are checked against it.
struct PackageTargets {
    struct Unreadable: Error, CustomStringConvertible { let description: String }

    var modules: [String: Set<String>] = [:]
    /// Each module's folder: its `path:`, else `Sources/<name>`.
    var folders: [String: String] = [:]

    init(_ text: String) throws {
        let characters = Array(text)
        var offset = 0
        while let call = Self.nextCall(in: characters, from: offset) {
            let (body, end) = try Self.arguments(characters, from: call)
            offset = end
            guard let name = Self.quoted(after: "name:", in: body) else { throw Unreadable(description: "a target without a name: \(body)") }
            let path = Self.quoted(after: "path:", in: body) ?? "Sources/" + name
            guard !path.hasPrefix("Tests/"), !path.hasPrefix("Benchmarks/") else { continue }
            var dependencies: Set<String> = []
            if let list = body.range(of: "dependencies:"), let close = body[list.upperBound...].firstIndex(of: "]") {
                dependencies = Set(body[list.upperBound..<close].split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
            }
            modules[name] = dependencies
            folders[name] = path
        }
    }

    /// The offset just past the next `.target(`, `.executableTarget(` or `.systemLibrary(` from `offset`.
    private static func nextCall(in characters: [Character], from offset: Int) -> Int? {
        let calls = [".target(", ".executableTarget(", ".systemLibrary("].map(Array.init)
        var index = offset
        while index < characters.count {
            for call in calls where characters[index...].starts(with: call) { return index + call.count }
            index += 1
        }
        return nil
    }

    /// The call's arguments up to its closing parenthesis (skipping parentheses inside strings), and the offset after it.
    private static func arguments(_ characters: [Character], from start: Int) throws -> (String, Int) {
        var (depth, inString, index) = (1, false, start)
        while index < characters.count {
            switch (characters[index], inString) {
            case ("\\", true): index += 1
            case ("\"", _): inString.toggle()
            case ("(", false): depth += 1
            case (")", false):
                depth -= 1
                if depth == 0 { return (String(characters[start..<index]), index + 1) }
            default: break
            }
            index += 1
        }
        throw Unreadable(description: "a target call without its closing parenthesis")
    }

    private static func quoted(after label: String, in body: String) -> String? {
        guard let found = body.range(of: label) else { return nil }
        let rest = body[found.upperBound...].drop { $0 == " " }
        guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { return nil }
        return String(rest[rest.index(after: rest.startIndex)..<close])
    }
}
