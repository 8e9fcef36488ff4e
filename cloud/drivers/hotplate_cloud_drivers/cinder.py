"""A Cinder volume driver for a cloud with no storage: each volume a sparse file.

Cinder's fake logging driver stores nothing, so a backup service has nothing
to read and a restore nowhere to write. This one keeps each volume and
snapshot as a sparse file under the volume service's state path and hands
it out as a 'local' connection, which os-brick opens as a plain path: the
backup service reads and restores real bytes, sizes grow with extend, and
clones and snapshots copy the file. Nova's fake virt driver attaches any
connection without looking at it.
"""

import os
import shutil

from cinder.tests import fake_driver
from oslo_config import cfg

GiB = 1 << 30


class FileBackedVolumeDriver(fake_driver.FakeLoggingVolumeDriver):

    def _dir(self):
        path = os.path.join(cfg.CONF.state_path, 'file-volumes')
        os.makedirs(path, exist_ok=True)
        return path

    def _volume_path(self, volume):
        return os.path.join(self._dir(), 'volume-%s' % volume['id'])

    def _snapshot_path(self, snapshot):
        return os.path.join(self._dir(), 'snapshot-%s' % snapshot['id'])

    @staticmethod
    def _sized(path, size_gb):
        with open(path, 'ab') as f:
            f.truncate(int(size_gb) * GiB)

    @staticmethod
    def _copy(source, target, size_gb):
        shutil.copyfile(source, target)
        FileBackedVolumeDriver._sized(target, size_gb)

    @staticmethod
    def _remove(path):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass

    def create_volume(self, volume):
        update = super().create_volume(volume)
        self._sized(self._volume_path(volume), volume['size'])
        return update

    def delete_volume(self, volume):
        self._remove(self._volume_path(volume))

    def extend_volume(self, volume, new_size):
        self._sized(self._volume_path(volume), new_size)

    def create_cloned_volume(self, volume, src_vol):
        self._copy(self._volume_path(src_vol), self._volume_path(volume), volume['size'])

    def create_snapshot(self, snapshot):
        shutil.copyfile(self._volume_path(snapshot['volume']), self._snapshot_path(snapshot))

    def delete_snapshot(self, snapshot):
        self._remove(self._snapshot_path(snapshot))

    def create_volume_from_snapshot(self, volume, snapshot):
        self._copy(self._snapshot_path(snapshot), self._volume_path(volume), volume['size'])

    def validate_connector(self, connector):
        pass  # a local path needs no initiator

    def initialize_connection(self, volume, connector):
        info = super().initialize_connection(volume, connector)
        path = self._volume_path(volume)
        if not os.path.exists(path):  # a volume made before this driver kept files
            self._sized(path, volume['size'])
        info['driver_volume_type'] = 'local'
        info['data']['device_path'] = path
        return info
