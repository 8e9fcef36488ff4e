"""Idempotent registration of the test cloud's objects (run with the cloud's venv).

  bootstrap.py keystone    projects, users, roles, services, endpoints,
                           heat stack-user domain (keystone must be up)
  bootstrap.py catalog     only the regions, services and endpoints (what a running
                           cloud lacks after the catalog grew)
  bootstrap.py resources   flavors, image, external network (all APIs up)
"""
import os
import sys
import tempfile
import urllib.parse

import openstack

E = os.environ
PASS = E.get('SERVICE_PASS', 'secret')
ADMIN_PASS = E.get('ADMIN_PASS', 'secret')
REGION = E.get('REGION', 'RegionOne')
P = {k: E[k] for k in E if k.endswith('_PORT')}
H = 'http://127.0.0.1'

SERVICES = [
    # (service name, type, url)
    ('placement', 'placement', f"{H}:{P['PLACEMENT_PORT']}"),
    ('nova', 'compute', f"{H}:{P['NOVA_PORT']}/v2.1"),
    ('glance', 'image', f"{H}:{P['GLANCE_PORT']}"),
    ('neutron', 'network', f"{H}:{P['NEUTRON_PORT']}"),
    ('cinderv3', 'volumev3', f"{H}:{P['CINDER_PORT']}/v3/%(project_id)s"),
    ('cinder', 'block-storage', f"{H}:{P['CINDER_PORT']}/v3/%(project_id)s"),
    # hotplate is the cloud's orchestration service (real Heat is reached by URL)
    ('hotplate', 'orchestration', f"{H}:{P['HOTPLATE_PORT']}/v1/%(tenant_id)s"),
    ('hotplate-cfn', 'cloudformation', f"{H}:{P['HOTPLATE_CFN_PORT']}/v1"),
]
HEAT_REGION = E.get('HEAT_REGION', 'HeatRegion')
OFFSET = int(E.get('HEAT_REGION_PORT_OFFSET', '10000'))


def heat_region_url(url):
    """The same API on the port real Heat's region reaches it by (uWSGI listens on both)."""
    parts = urllib.parse.urlsplit(url)
    return parts._replace(netloc=f"{parts.hostname}:{parts.port + OFFSET}").geturl()


# Real Heat, when it runs (CLOUD_HEAT=1), is the orchestration service of a second region
# holding the same cloud (its region_name_for_services). Its APIs there listen on ports of
# their own, so the calls Heat makes are counted apart from those between the cloud's
# services (benchmarks/cloud.py).
HEAT_SERVICES = [
    ('keystone', 'identity', heat_region_url(f"{H}:{P['KEYSTONE_PORT']}/v3/")),
    *[(name, kind, heat_region_url(url))
      for name, kind, url in SERVICES if not name.startswith('hotplate')],
    ('heat', 'orchestration', f"{H}:{P['HEAT_PORT']}/v1/%(tenant_id)s"),
    ('heat-cfn', 'cloudformation', f"{H}:{P['HEAT_CFN_PORT']}/v1"),
]
REGION_TWO = 'RegionTwo'
# A second hotplate's region (its suite runs it on HOTPLATE_REGION2_PORT): only an
# orchestration endpoint, under a service of its own, so that nothing looking for another
# service type finds this region, and a client asking for RegionOne's orchestration never
# gets it.
REGION_TWO_SERVICES = [
    ('hotplate-region-two', 'orchestration',
     f"{H}:{P['HOTPLATE_REGION2_PORT']}/v1/%(tenant_id)s"),
]
SERVICE_USERS = ['placement', 'nova', 'glance', 'neutron', 'cinder', 'heat']


def conn():
    return openstack.connect(cloud='hotplate-admin')


def role(c, name):
    return c.identity.find_role(name) or c.identity.create_role(name=name)


def keystone():
    c = conn()
    ident = c.identity
    default = ident.find_domain('default')
    projects = {}
    for pname, desc in (('service', 'service users'), ('demo', 'demo'),
                        ('alt_demo', 'a second tenant')):
        projects[pname] = (ident.find_project(pname, domain_id=default.id)
                           or ident.create_project(name=pname,
                                                   domain_id=default.id,
                                                   description=desc))
    roles = {r: role(c, r) for r in ('admin', 'member', 'reader', 'service',
                                      'heat_stack_owner', 'heat_stack_user')}

    def user(name, password, project=None, domain=default):
        u = ident.find_user(name, domain_id=domain.id)
        if not u:
            kw = dict(name=name, password=password, domain_id=domain.id)
            if project:
                kw['default_project_id'] = project.id
            u = ident.create_user(**kw)
        return u

    for name in SERVICE_USERS:
        u = user(name, PASS, projects['service'])
        for r in ('admin', 'service'):
            ident.assign_project_role_to_user(projects['service'], u, roles[r])
    demo = user('demo', ADMIN_PASS, projects['demo'])
    for r in ('member', 'reader', 'heat_stack_owner'):
        ident.assign_project_role_to_user(projects['demo'], demo, roles[r])
    reader = user('demo_reader', ADMIN_PASS, projects['demo'])
    ident.assign_project_role_to_user(projects['demo'], reader, roles['reader'])
    alt = user('alt_demo', ADMIN_PASS, projects['alt_demo'])
    for r in ('member', 'reader', 'heat_stack_owner'):
        ident.assign_project_role_to_user(projects['alt_demo'], alt, roles[r])
    admin = ident.find_user('admin', domain_id=default.id)
    ident.assign_project_role_to_user(projects['demo'], admin, roles['admin'])

    catalog(c)

    # Heat stack-user domain, as heat's install guide describes
    hd = ident.find_domain('heat') or ident.create_domain(
        name='heat', description='Stack projects and users')
    hda = user('heat_domain_admin', PASS, domain=hd)
    ident.assign_domain_role_to_user(hd, hda, roles['admin'])
    print('keystone bootstrap ok')


def catalog(c=None):
    """The regions, services and endpoints (public, internal, admin); adding only."""
    ident = (c or conn()).identity
    if not ident.find_region(HEAT_REGION):
        ident.create_region(id=HEAT_REGION, description='real Heat, beside hotplate')
    if not ident.find_region(REGION_TWO):
        ident.create_region(id=REGION_TWO, description='a second hotplate')
    for region, services in ((REGION, SERVICES), (HEAT_REGION, HEAT_SERVICES),
                             (REGION_TWO, REGION_TWO_SERVICES)):
        for sname, stype, url in services:
            svc = ident.find_service(sname)
            if not svc:
                svc = ident.create_service(name=sname, type=stype,
                                           description=sname)
            have = {e.interface for e in ident.endpoints(service_id=svc.id)
                    if e.region_id == region}
            for iface in ('public', 'internal', 'admin'):
                if iface not in have:
                    ident.create_endpoint(service_id=svc.id, interface=iface,
                                          url=url, region_id=region)
    print('catalog ok')


def resources():
    c = conn()
    for name, vcpus, ram, disk in (('m1.tiny', 1, 512, 1),
                                   ('m1.small', 1, 2048, 20),
                                   ('m1.medium', 2, 4096, 40),
                                   ('m1.large', 4, 8192, 80)):
        if not c.compute.find_flavor(name, ignore_missing=True):
            c.compute.create_flavor(name=name, vcpus=vcpus, ram=ram,
                                    disk=disk, is_public=True)
    for image in c.image.images(name='cirros-fake'):
        if image.status != 'active':   # an upload that failed half way
            c.image.delete_image(image)
    if not any(c.image.images(name='cirros-fake')):
        with tempfile.NamedTemporaryFile(suffix='.img') as f:
            f.write(b'\0' * (1 << 20))   # 1 MiB of zeros, raw
            f.flush()
            c.image.create_image(name='cirros-fake', filename=f.name,
                                 disk_format='raw', container_format='bare',
                                 visibility='public', wait=True)
    net = c.network.find_network('public')
    if not net:
        net = c.network.create_network(
            name='public', is_router_external=True, is_shared=False,
            provider_network_type='flat', provider_physical_network='public')
    if not list(c.network.subnets(network_id=net.id)):
        c.network.create_subnet(
            name='public-subnet', network_id=net.id, ip_version=4,
            cidr='172.24.4.0/24', gateway_ip='172.24.4.1',
            allocation_pools=[{'start': '172.24.4.10',
                               'end': '172.24.4.250'}],
            is_dhcp_enabled=False)
    print('resources ok: flavors, image cirros-fake, external net public')


if __name__ == '__main__':
    {'keystone': keystone, 'catalog': catalog, 'resources': resources}[sys.argv[1]]()
