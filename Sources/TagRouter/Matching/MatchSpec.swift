import TagCore

/// The options of a route's `match:` section.
enum MatchSpec {
    static let spec = OptionSpec("conditions an event must meet; all are required, a list means any of", [
        Option("event", .oneOrMany(.choice(TagEvent.Kind.allCases.map(\.rawValue))), default: "tag.arrived", "the event kind(s)"),
        Option("uri", .oneOrMany(.string), "glob (`*`, `?`) on the tag's first URI"),
        Option("uri_regex", .oneOrMany(.string), "regular expression searched in the first URI"),
        Option("text", .oneOrMany(.string), "glob on the first Text record"),
        Option("text_regex", .oneOrMany(.string), "regular expression searched in the first Text record"),
        Option("mime", .oneOrMany(.string), "glob on the MIME type of the first MIME record"),
        Option("uid", .oneOrMany(.string), "tag UID in any spelling (`04:A2:24…`, `04a224…`, `04-A2-24…`)"),
        Option("tag_id", .oneOrMany(.string), "the Home Assistant tag id, or the UID"),
        Option("reader", .oneOrMany(.string), "glob on the reader name"),
        Option("tag_type", .oneOrMany(.string), "glob on the tag type (`ntag215`, `mifare-classic-1k`, …)"),
        Option("tag", .oneOrMany(.string), "glob on the tag's name from `tags:`"),
        Option("group", .oneOrMany(.string), "glob on a group of the tag from `tags:`; any of its groups may match"),
        Option("known", .bool, "`true`: the tag is in `tags:`; `false`: it is not (the \"rejected\" route)"),
        Option("sun", .oneOrMany(.choice(["verified", "failed"] + SUNCheck.Failure.allCases.map(\.rawValue))),
            "the tag's SUN check (`sun:`): `verified`, `failed`, or a reason (`mac-mismatch`, `replayed-counter`, …)"),
        Option("genuine", .oneOrMany(.choice(GenuineCheck.allCases.map(\.rawValue))),
            "the tag's NXP originality signature (`tag.genuine`): `true`, `false`, or `unknown` (an NTAG 21x / Ultralight EV1 that did not give it)"),
        Option("record", .section(OptionSpec("a condition on the first record", [
            Option("tnf", .oneOrMany(.int(0...7)), "type name format (1 well-known, 2 MIME, 3 absolute URI, 4 external)"),
            Option("type", .oneOrMany(.string), "glob on the record type (`U`, `T`, `android.com:pkg`)"),
        ])), "the first record's TNF and type"),
        Option("json", .map(.any), "`path: value` pairs over the event JSON (`tag.type: ntag215`); string values are globs"),
        Option("records", .choice(["first", "any"]), default: "first", "`uri`, `text`, `mime` and `record` look at the first record of their kind, or at `any` record"),
    ])
}
