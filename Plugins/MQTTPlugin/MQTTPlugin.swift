// Module MQTTPlugin: see README.md (Layout) for what it is for.
