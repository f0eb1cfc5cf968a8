// TagCore's vocabulary is made of JSON values: every module that says `import TagCore`
// (the router, the plugins, the readers, the tests) gets `JSONValue`, `JSONObject`
// and the writer and parser without naming the module they live in. They live in
// OrderedJSON, below TagCore, so the NDEF codec can build its records' JSON with
// the same types without depending on TagCore.
@_exported import OrderedJSON
