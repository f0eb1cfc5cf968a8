import SystemKit
import Testing

/// Text in man pages: what roff would take as a request or an escape is written so it prints as given.
@Suite struct RoffTests {
    @Test(arguments: [
        (".hidden as a request", #"\&.hidden as a request"#),
        ("'also a request", #"\&'also a request"#),
        (#"a \fB backslash"#, #"a \efB backslash"#),
        ("--flag", #"\-\-flag"#),
        ("say \"quoted\" and 'quoted'", "say \"quoted\" and 'quoted'"),
        ("→ and …", #"\[u2192] and \[u2026]"#),
        ("two\nlines", "two lines"),
        ("", ".sp"),
    ])
    func aLinePrintsAsWritten(text: String, expected: String) {
        #expect(Roff.line(text) == expected)
    }

    @Test(arguments: [
        ("`uid` of the tag", #"\fBuid\fR of the tag"#),
        ("`.*` matches all", #"\fB.*\fR matches all"#),
        (".* then `code`", #"\&.* then \fBcode\fR"#),
        ("'quote' then `a\\b`", #"\&'quote' then \fBa\eb\fR"#),
        ("a `{{json}}` and `-` too", #"a \fB{{json}}\fR and \fB\-\fR too"#),
        ("an unpaired ` backtick", #"an unpaired ` backtick"#),
        ("`ab` and ` open", #"\fBab\fR and ` open"#),
    ])
    func codeSpansAreBoldAndTheRestPrintsAsWritten(text: String, expected: String) {
        #expect(Roff.codeSpans(text) == expected)
    }
}
