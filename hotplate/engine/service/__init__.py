"""The engine topic's side: what heat-api's RPC calls ask (create, update, show,
validate, preview, abandon, resource and template catalogues), answered from the rows or
handed to the worker side as a traversal."""
