import OrderedJSON
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

    /// What the SUN check found reaches a template, member by member (docs/secure-tags.md promises them).
    @Test func rendersTheSUNCheck() throws {
        var tag = TagInfo(uid: TagUID("04:DE:5F:1E:AC:C0:40")!, type: "ntag424")
        tag.sun = SUNCheck(uid: "04de5f1eacc040", counter: 61, failure: .replayedCounter)
        let variables = Template.variables(for: TagEvent(kind: .tagArrived, reader: "door", tag: tag), route: "r")
        #expect(try Template("{{tag.sun.verified}} {{tag.sun.counter}} {{tag.sun.reason}} {{tag.sun.uid}}").render(variables) == "false 61 replayed-counter 04de5f1eacc040")
        #expect(throws: TemplateError.self) { try Template("{{tag.sun.count}}") }
        #expect(throws: TemplateError.self) { try Template("{{tag.uid.x}}") }
    }

    @Test func displayMasksEnvironmentValuesAndSecretsButRenderUsesThem() throws {
        let event = TagEvent(kind: .tagArrived, reader: "door", tag: TagInfo(uid: TagUID("04:A2")!, type: "ntag215"))
        let variables = Template.variables(for: event, route: "r")
        let hook = try Template("https://ha.local/api/webhook/{{env.HOOK_ID}}?r={{reader}}", environment: ["HOOK_ID": "abc123"])
        #expect(hook.render(variables) == "https://ha.local/api/webhook/abc123?r=door")
        #expect(hook.display(variables) == "https://ha.local/api/webhook/***?r=door")
        #expect(hook.isConstant == false)
        let fallback = try Template("{{env.NONE | default: 'x'}}-{{env.NONE | default: 'y' | upper}}", environment: [:])
        #expect(fallback.render(variables) == "x-Y")
        #expect(fallback.display(variables) == "***-***")
        #expect(fallback.isConstant)
        let file = Template(secret: "Bearer t0k3n")
        #expect(file.render(variables) == "Bearer t0k3n")
        #expect(file.display(variables) == "***")
        #expect(file.description == "***")
    }
}

@Suite struct TemplateErrorTests {
    struct Case: Sendable {
        let template: String
        let message: String
    }

    static let cases: [Case] = [
        Case(template: "{{urii}}", message: "at character 1: unknown variable 'urii' (did you mean 'uri'?)"),
        Case(template: "x {{tag.uuid}}", message: "at character 3: unknown variable 'tag.uuid' (did you mean 'tag.uid'?); 'tag' has uid, uid_dashed, type, nfc_forum_type, atqa, sak, ndef_capacity, writable, name, groups, signature, genuine, sun, sun.verified, sun.uid, sun.counter, sun.reason"),
        Case(template: "{{uri.host}}", message: "at character 1: unknown variable 'uri.host': 'uri' has no members"),
        Case(template: "{{uri | uper}}", message: "at character 1: unknown filter 'uper' (did you mean 'upper'?)"),
        Case(template: "{{uri | default}}", message: "at character 1: filter 'default' needs a value: default: \"x\""),
        Case(template: "{{uri", message: "at character 1: '{{' is not closed by '}}'"),
        Case(template: "{{ }}", message: "at character 1: empty '{{ }}'; name a variable such as {{uri}}"),
        Case(template: "{{env.MISSING}}", message: "at character 1: environment variable 'MISSING' is not set (add | default: \"…\" to allow that)"),
    ]

    @Test(arguments: cases) func rejected(_ example: Case) {
        do {
            let template = try Template(example.template, environment: [:])
            Issue.record("accepted \(template)")
        } catch {
            #expect(error.description == example.message)
        }
    }

    @Test func knownPathsAndEnvironment() throws {
        let event = tagEvent(uri: "https://a/b?c=d", text: "Hi")
        let variables = Template.variables(for: event, route: "r")
        let env = ["TOKEN": "s3cr3t"]
        #expect(try Template("{{ndef.records.1.text}} {{json.tag.uid}}", environment: env).render(variables) == "Hi 04a224b2c35e80")
        #expect(try Template("Bearer {{env.TOKEN}}", environment: env).render(variables) == "Bearer s3cr3t")
        #expect(try Template("{{env.NONE | default: 'x'}}", environment: env).render(variables) == "x")
        #expect(try Template("{{event}} {{route}} {{tag_id}}", environment: env).render(variables) == "tag.arrived r 04-A2-24-B2-C3-5E-80")
        #expect(try Template("{{tag.type | upper}}|{{text | lower}}|{{dwell_ms | default: \"0\"}}", environment: env).render(variables) == "NTAG215|hi|0")
        #expect(try Template("{{uri | urlencode}}", environment: env).render(variables) == "https%3A%2F%2Fa%2Fb%3Fc%3Dd")
        #expect(try Template("{{text | json}} {{ndef_error | json}}", environment: env).render(variables) == "\"Hi\" null")
        let whole = try Template("{{json}}", environment: env).render(variables)
        #expect(try JSONValue.parse(whole)["tag"]?["uid"] == "04a224b2c35e80")
        #expect(try Template("{{tag}}", environment: env).render(variables).hasPrefix("{\"uid\":\"04a224b2c35e80\""))
        #expect(try Template("no variables", environment: env).isConstant)
        #expect(try Template("{{ uri|upper }}", environment: env).render(variables) == "HTTPS://A/B?C=D")
    }
}
