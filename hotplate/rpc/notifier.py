"""ports.Notifier over oslo.messaging's Notifier, as Heat sends its notifications.

Heat's ``[oslo_messaging_notifications]`` options decide it: ``driver``
(``messagingv2`` for RabbitMQ; unset or ``noop``: no notifier at all, and
the engine builds nothing), ``transport_url`` (the RPC one by default) and
``topics`` (``notifications``). Messages go out on their own notification
transport (``oslo_messaging.get_notification_transport``), under Heat's
exchange and publisher id (``orchestration.<host>``), so a Ceilometer set up
for Heat reads them from ``heat`` / ``notifications.info`` and ``.error``.

The engine must not wait on the broker: oslo's rabbit driver blocks the
sending thread until the broker takes the message, and by default retries
a lost connection forever. So ``send`` only queues the notification and one
thread of the notifier's own publishes them, in order. The queue is
bounded; when it is full (the broker has been away a long time) a
notification is dropped with a warning rather than held in memory.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import warnings
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

from oslo_config import cfg

from hotplate.model.notifications import Notification
from hotplate.rpc.messaging import DEFAULT_EXCHANGE, EVENTLET_WARNINGS

with warnings.catch_warnings():
    for _pattern in EVENTLET_WARNINGS:
        warnings.filterwarnings("ignore", message=_pattern)
    import oslo_messaging

__all__ = ["DEFAULT_TOPICS", "OsloNotifier", "build_notifier", "publisher_id_for"]

LOG = logging.getLogger(__name__)

DEFAULT_TOPICS = ("notifications",)
"""oslo.messaging's default ``[oslo_messaging_notifications] topics``."""

NO_DRIVER = "noop"
DRIVER_GROUP = "oslo.messaging.notify.drivers"

QUEUE_SIZE = 1024
"""Notifications waiting for the broker at most; a stack sends a few per action."""

CLOSE_TIMEOUT = 5.0
"""How long ``close`` lets the queue drain before giving up on the rest."""

_STOP = object()


def publisher_id_for(host: str) -> str:
    """Heat's default publisher id: ``orchestration.<host>``."""
    return f"orchestration.{host}"


def build_notifier(driver: str | Sequence[str] | None, transport_url: str | None,
                   topics: Sequence[str] | None = None, host: str = "hotplate", *,
                   publisher_id: str | None = None) -> OsloNotifier | None:
    """The configured notifier, or None when ``driver`` names none (unset, empty, noop).

    ``driver`` is ``[oslo_messaging_notifications] driver`` (a name or a
    list, as that option is multi-valued); ``transport_url`` the
    notification transport's URL (give the RPC ``transport_url`` when that
    section has none; None: oslo's configuration decides); ``topics``
    defaults to ``notifications``; ``host`` is ``[DEFAULT] host``.

    Raises:
        ValueError: a driver oslo.messaging does not have, or a bad URL.
    """
    names = [driver] if isinstance(driver, str) else list(driver or ())
    names = [name for name in names if name and name != NO_DRIVER]
    if not names:
        return None
    known = {entry.name for entry in entry_points(group=DRIVER_GROUP)}
    unknown = sorted(set(names) - known)
    if unknown:
        raise ValueError(f"unknown notification driver {', '.join(unknown)!s}; "
                         f"oslo.messaging has {', '.join(sorted(known))}")
    # Heat's control_exchange: its notifications go to the ``heat`` exchange unless
    # the operator's configuration names another (this only sets the default).
    oslo_messaging.set_transport_defaults(control_exchange=DEFAULT_EXCHANGE)
    try:
        transport = oslo_messaging.get_notification_transport(cfg.CONF, url=transport_url)
    except (oslo_messaging.InvalidTransportURL, oslo_messaging.DriverLoadFailure) as exc:
        raise ValueError(f"notification transport URL: {exc}") from exc
    return OsloNotifier(transport, names, list(topics or DEFAULT_TOPICS),
                        publisher_id or publisher_id_for(host))


class _Context(dict[str, Any]):
    """The request context as oslo's notifier takes it: it drops a plain dict
    (``_sanitize_context``) and keeps what the context's ``redacted_copy`` gives.
    Ours carries no token or password, so its redacted copy is itself."""

    def redacted_copy(self) -> dict[str, Any]:
        return dict(self)


class OsloNotifier:
    """Notifications queued here and published by one thread; see the module docstring."""

    def __init__(self, transport: Any, drivers: Sequence[str], topics: Sequence[str],
                 publisher_id: str, *, queue_size: int = QUEUE_SIZE) -> None:
        self._transport = transport
        self._notifiers = [oslo_messaging.Notifier(transport, publisher_id=publisher_id,
                                                   driver=name, topics=list(topics))
                           for name in drivers]
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=queue_size)
        self._closed = False
        self._thread = threading.Thread(target=self._publish_all, name="hotplate-notify",
                                        daemon=True)
        self._thread.start()

    def send(self, notification: Notification) -> None:
        """Queue it for the publishing thread; dropped (logged) if the queue is full."""
        if self._closed:
            LOG.warning("notifier closed; %s not sent", notification.event_type)
            return
        try:
            self._queue.put_nowait(notification)
        except queue.Full:
            LOG.warning("%d notifications waiting for the broker; %s dropped",
                        self._queue.maxsize, notification.event_type)

    def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Publish what is queued within ``timeout`` seconds, then close the transport.

        Idempotent. Notifications still queued after that are lost (logged).
        """
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(queue.Full):  # then the join below times out too
            self._queue.put(_STOP, timeout=timeout)
        self._thread.join(timeout)
        if self._thread.is_alive():
            LOG.warning("notifications still waiting for the broker after %.0f s; "
                        "%d not sent", timeout, self._queue.qsize())
            return  # its thread may be inside the transport: leave both to the exit
        self._transport.cleanup()

    def _publish_all(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            self._publish(item)

    def _publish(self, notification: Notification) -> None:
        for notifier in self._notifiers:
            method = getattr(notifier, notification.priority.lower())
            try:
                method(_Context(notification.context), notification.event_type,
                       dict(notification.payload))
            except Exception:  # oslo logs its drivers' failures; this is anything else
                LOG.exception("could not send notification %s", notification.event_type)
