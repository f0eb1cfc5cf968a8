import OrderedJSON
import TagCore
import Testing

/// `tag.signature` and `tag.genuine` against docs/event.schema.json: each verdict conforms, other values do not.
@Suite struct GenuineSchemaTests {
    static func event(_ genuine: GenuineCheck?, signature: [UInt8]? = [UInt8](repeating: 0xAB, count: 32)) -> TagEvent {
        var tag = EventSchemaTests.tag
        tag.signature = signature
        tag.genuine = genuine
        return TagEvent(kind: .tagArrived, reader: "door", tag: tag)
    }

    @Test func everyVerdictConforms() async throws {
        let events = [Self.event(.genuine), Self.event(.notGenuine), Self.event(.unknown, signature: nil), Self.event(.genuine).following(.tagRemoved)]
        #expect(try await SchemaCheck.problems(events.map(\.json)) == [])
    }

    @Test func otherVerdictsDoNotConform() async throws {
        func changed(_ value: JSONValue) -> JSONValue {
            guard case .object(var object) = Self.event(.genuine).json, case .object(var tag)? = object["tag"] else { return .null }
            tag["genuine"] = value
            object["tag"] = .object(tag)
            return .object(object)
        }
        let problems = try await SchemaCheck.problems([changed("yes"), changed(1)])
        #expect(problems.count == 2, "\(problems)")
    }
}
