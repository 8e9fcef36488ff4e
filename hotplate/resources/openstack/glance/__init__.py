"""Glance's resource types (``OS::Glance::*``), as Heat 27.0.1 defines them.

``api`` is the call layer (Glance's v2 JSON, errors named as glanceclient names
them); ``image`` holds OS::Glance::WebImage (an image imported from a URL by
Glance's web-download) and OS::Glance::Image, which Heat keeps hidden and
makes nothing for.
"""
