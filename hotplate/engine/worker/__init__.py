"""The engine_worker side: one node of a traversal checked, its row and lock kept, its
sync point reported, and the recovery timer that re-drives what a dead engine or a lost
message left behind. It answers the worker topic and is called by the service side; it
never reaches back into it."""
