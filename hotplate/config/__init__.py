"""hotplate's configuration: Heat's option names and sections, through oslo.config.

``load`` reads the file(s), the ``HOTPLATE_<OPTION>`` variables and the
flags into one ``Settings``; the composition root turns that into what each
part receives (``EngineOptions``, pool limits, transport URLs). The modules:
``options`` declares every option, ``loading`` applies the precedence,
``settings`` holds the result, ``sample`` prints it all as a heat.conf.
"""

from hotplate.config.loading import (
    ConfigError,
    find_sources,
    heat_database_url,
    load,
    use_for_messaging,
)
from hotplate.config.sample import render as sample
from hotplate.config.settings import (
    ApiSettings,
    DatabaseSettings,
    NotificationSettings,
    Settings,
    Sources,
)

__all__ = [
    "ApiSettings",
    "ConfigError",
    "DatabaseSettings",
    "NotificationSettings",
    "Settings",
    "Sources",
    "find_sources",
    "heat_database_url",
    "load",
    "sample",
    "use_for_messaging",
]
