import FoundationEssentials
import OrderedJSON

extension Log.Entry {
    /// The entry as one line of stderr: `LEVEL message key=value…` for people, or one JSON object with the time.
    func line(_ format: Log.Format) -> String {
        switch format {
        case .json:
            var object = JSONObject()
            object["time"] = .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            for (key, value) in json { object[key] = value }
            return JSONValue.object(object).serialized()
        case .human:
            let details = fields.map { "\($0.key)=\($0.value.plainText)" }.joined(separator: " ")
            return "\(level.name.uppercased()) \(message)" + (details.isEmpty ? "" : " " + details)
        }
    }

    /// The members of its JSON line but the time: `level`, `msg`, then the fields.
    public var json: JSONObject {
        var object = JSONObject()
        object["level"] = .string(level.name)
        object["msg"] = .string(message)
        for (key, value) in fields { object[key] = value }
        return object
    }
}
