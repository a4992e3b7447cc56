"""API views of the forum core, one module per resource. Thin: parse, resolve through the selectors
(404 for what the viewer may not see), write through the services, serialize for this viewer."""
