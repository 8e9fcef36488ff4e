

def test_block_device_mappings_read_as_novaclients() -> None:
    assert Server._bdm_v1([{"device_name": "vda", "volume_id": "v", "volume_size": 2,
                            "delete_on_termination": True}]) == [
        {"device_name": "vda", "volume_id": "v", "volume_size": 2,
         "delete_on_termination": True}]
    assert Server._bdm_v2([{"volume_id": "v", "boot_index": 0},
                           {"swap_size": 512},
                           {"ephemeral_size": 1, "ephemeral_format": "ext4",
                            "device_name": "vdc"}]) == [
        {"uuid": "v", "source_type": "volume", "destination_type": "volume",
         "boot_index": 0, "delete_on_termination": False},
        {"source_type": "blank", "destination_type": "local", "boot_index": -1,
         "delete_on_termination": True, "guest_format": "swap", "volume_size": 512},
        {"source_type": "blank", "destination_type": "local", "boot_index": -1,
         "delete_on_termination": True, "volume_size": 1, "guest_format": "ext4",
         "device_name": "vdc"}]
    image = Server._bdm_v2([{"image": "i", "volume_size": 1, "volume_type": "fast"}])
    assert image == [{"uuid": "i", "source_type": "image", "destination_type": "volume",
                      "boot_index": 0, "delete_on_termination": False, "volume_size": 1,
                      "volume_type": "fast"}]


def test_metadata_values_go_to_nova_as_strings() -> None:
    assert Server.meta_serialize({"a": "x", "b": 1, "c": {"d": [1]}}) == {
        "a": "x", "b": "1", "c": '{"d": [1]}'}
