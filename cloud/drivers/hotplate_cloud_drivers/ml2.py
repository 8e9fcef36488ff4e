"""An ML2 mechanism driver for a cloud with no dataplane.

ML2 asks a mechanism driver to bind each port to a host; with no L2 agent
there is nobody to do it, so ports would stay DOWN and Nova would wait for
them. This driver binds every port it is offered (any host, any VNIC type,
the first segment) as VIF type 'ovs' with port filtering, and marks it
ACTIVE at once. ML2 still does everything else (segments, IPAM, security
groups, routers, floating IPs) and Neutron still tells Nova
'network-vif-plugged'. Nothing is plugged anywhere: Nova runs its fake virt
driver.

It also offers Neutron's trunk service a driver, without which the trunk
plugin refuses to load: trunks of VLAN subports on 'ovs' ports, with no
agent, so a trunk stays DOWN as Neutron leaves it until an agent wires it.
"""

from neutron_lib import constants
from neutron_lib.api.definitions import portbindings
from neutron_lib.plugins.ml2 import api
from neutron_lib.services.trunk import constants as trunk_constants
from oslo_config import cfg
from oslo_log import log

NAME = 'bindall'

LOG = log.getLogger(__name__)


class BindAllMechanismDriver(api.MechanismDriver):

    def initialize(self):
        LOG.info('bindall: binds every port, no dataplane')
        global _TRUNK_DRIVER
        # ML2 loads before the service plugins, so the trunk plugin finds it
        _TRUNK_DRIVER = _trunk_driver()

    @property
    def connectivity(self):
        return portbindings.CONNECTIVITY_L2

    def bind_port(self, context):
        for segment in context.segments_to_bind:
            context.set_binding(
                segment[api.ID], portbindings.VIF_TYPE_OVS,
                {portbindings.CAP_PORT_FILTER: True,
                 portbindings.OVS_HYBRID_PLUG: False},
                status=constants.PORT_STATUS_ACTIVE)
            return


_TRUNK_DRIVER = None


def _trunk_driver():
    # neutron's own modules load only inside neutron-server
    from neutron.services.trunk.drivers import base

    class BindAllTrunkDriver(base.DriverBase):

        @property
        def is_loaded(self):
            try:
                return NAME in cfg.CONF.ml2.mechanism_drivers
            except cfg.NoSuchOptError:
                return False

    return BindAllTrunkDriver(
        NAME, (portbindings.VIF_TYPE_OVS,),
        (trunk_constants.SEGMENTATION_TYPE_VLAN,),
        agent_type=None, can_trunk_bound_port=True)
