import Foundation
import NDEF
import OrderedJSON
import TagCore
import Testing
import TestSupport

/// The events README.md and docs/**/*.md show are events tagrouter prints: every ```json
/// block parses, and each one with an `event` member conforms to the schema and is
/// exactly what `TagEvent.json` writes for the same event (members, order, derived
/// fields), with records that are what the NDEF codec makes of their bytes; and the
/// later events of a tag's presence carry what its arrival did, as the daemon's do.
@Suite struct DocumentedEventsTests {
    /// A ```json block of a Markdown file, and where it starts (`README.md:749`).
    struct Block: Sendable, CustomStringConvertible {
        var location: String
        var text: String
        var description: String { location }
    }

    static let blocks: [Block] = {
        let root = BuiltProducts.packageRoot
        let docs = FileManager.default.enumerator(atPath: root.appendingPathComponent("docs").path)?.compactMap { $0 as? String } ?? []
        let files = ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return files.flatMap { file in
            let text = (try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)) ?? ""
            return jsonBlocks(in: text, file: file)
        }
    }()

    /// Fenced blocks opened by ```json (indented or not); the indentation of the fence is removed.
    static func jsonBlocks(in text: String, file: String) -> [Block] {
        var blocks: [Block] = []
        var open: (line: Int, indent: Int, lines: [Substring])?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " }
            if var current = open {
                if trimmed == "```" {
                    blocks.append(Block(location: "\(file):\(current.line)", text: current.lines.joined(separator: "\n")))
                    open = nil
                } else {
                    current.lines.append(line.dropFirst(min(current.indent, line.prefix { $0 == " " }.count)))
                    open = current
                }
            } else if trimmed == "```json" {
                open = (number + 1, line.count - trimmed.count, [])
            }
        }
        return blocks
    }

    /// The documented events, without the two members the exec protocol adds to each line (docs/plugins.md).
    static func events() throws -> [(block: Block, event: JSONValue)] {
        try blocks.compactMap { block in
            guard case .object(var object) = try JSONValue.parse(block.text), object["event"] != nil else { return nil }
            object["route"] = nil
            object["attempt"] = nil
            return (block, .object(object))
        }
    }

    @Test func theDocsShowEvents() throws {
        #expect(Self.blocks.count >= 5)
        #expect(Set(try Self.events().map { $0.block.location.prefix { $0 != ":" } }) == ["README.md", "docs/guide/events.md", "docs/plugins.md"])
    }

    /// A `tag.tapped`, `tag.held` or `tag.removed` shown after an arrival of the same UID, in the same
    /// file, carries the arrival's `tag` and `tag_id` (the daemon copies them; a removal never has the raw UID as `tag_id`).
    @Test func presenceEventsCarryTheirArrivalsTagAndTagID() throws {
        var arrivals: [String: JSONValue] = [:]
        var checked = 0
        for (block, event) in try Self.events() {
            let file = String(block.location.prefix { $0 != ":" })
            guard case .string(let kind)? = event["event"], case .string(let uid)? = event["tag"]?["uid"] else { continue }
            if kind == "tag.arrived" {
                arrivals[file + " " + uid] = event
            } else if ["tag.tapped", "tag.held", "tag.removed"].contains(kind), let arrival = arrivals[file + " " + uid] {
                #expect(event["tag_id"] == arrival["tag_id"], "\(block): \(kind) has tag_id \(event["tag_id"]?.serialized() ?? "none"); its arrival has \(arrival["tag_id"]?.serialized() ?? "none")")
                #expect(event["tag"] == arrival["tag"], "\(block): \(kind) has not its arrival's tag")
                checked += 1
            }
        }
        #expect(checked >= 2)
    }

    @Test(arguments: blocks)
    func everyJSONBlockParses(_ block: Block) {
        #expect(throws: Never.self, "\(block)") { try JSONValue.parse(block.text) }
    }

    @Test func documentedEventsConformToTheSchema() async throws {
        let events = try Self.events()
        let problems = try await SchemaCheck.problems(events.map(\.event))
        #expect(problems == [], "\(events.map(\.block))")
    }

    @Test func documentedEventsAreWhatTheProgramPrints() throws {
        for (block, documented) in try Self.events() {
            let event = try TagEvent(json: documented)
            #expect(event.json.serialized() == documented.serialized(), "\(block)")
            guard let ndef = documented["ndef"], ndef != .null else { continue }
            let message = try NDEFMessage(vector: ndef)
            #expect(message.json.serialized() == ndef.serialized(), "\(block): records are not what their bytes decode to")
            #expect(event.uri == message.firstURI && event.text == message.firstText, "\(block)")
        }
    }
}
