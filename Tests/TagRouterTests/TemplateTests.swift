import TagCore
import Testing

@testable import TagRouter

@Suite struct TemplateTests {
    @Test func rendersVariablesAndFilters() throws {
        let event = TagEvent(kind: .tagArrived, reader: "door", tag: TagInfo(uid: TagUID("04:A2:24:B2")!, type: "ntag215"), uri: "spotify:track:1 x")
        let variables = Template.variables(for: event, route: "music")
        #expect(try Template("{{reader}}/{{tag.uid | upper}}").render(variables) == "door/04A224B2")
        #expect(try Template("{{uri | urlencode}}").render(variables) == "spotify%3Atrack%3A1%20x")
        #expect(try Template("{{text | default: \"none\"}} {{route}}").render(variables) == "none music")
        #expect(try Template("{{uri | json}}").render(variables) == "\"spotify:track:1 x\"")
    }
}
