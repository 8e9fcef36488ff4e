"""The engine: ``service`` answers the engine topic, ``worker`` checks the nodes of a
traversal, ``hosting`` is what a plugin sees; the modules here are what all three share
(dependencies, caches, clocks, events, notifications, timers) and import none of them."""
