# A MultiplayerPeer for bench_rpc_path.gd: it hands SceneMultiplayer the same packet
# `left` times from peer 2, and keeps what SceneMultiplayer sends (the last packet
# and a count), so the engine's whole RPC path runs with no socket under it.
extends MultiplayerPeerExtension

const FROM := 2

var packet := PackedByteArray()
var left := 0
var sent := 0
var last_sent := PackedByteArray()
var joined := false

func _get_available_packet_count() -> int:
	return left

func _get_packet_script() -> PackedByteArray:
	left -= 1
	return packet

func _put_packet_script(p_buffer: PackedByteArray) -> Error:
	sent += 1
	last_sent = p_buffer
	return OK

func _get_max_packet_size() -> int:
	return 1 << 24

func _get_packet_channel() -> int:
	return 0

func _get_packet_mode() -> TransferMode:
	return TRANSFER_MODE_RELIABLE

func _set_transfer_channel(_channel: int) -> void:
	pass

func _get_transfer_channel() -> int:
	return 0

func _set_transfer_mode(_mode: TransferMode) -> void:
	pass

func _get_transfer_mode() -> TransferMode:
	return TRANSFER_MODE_RELIABLE

func _set_target_peer(_peer: int) -> void:
	pass

func _get_packet_peer() -> int:
	return FROM

func _is_server() -> bool:
	return true

func _poll() -> void:
	if not joined:
		joined = true
		peer_connected.emit(FROM)

func _close() -> void:
	pass

func _disconnect_peer(_peer: int, _force: bool) -> void:
	pass

func _get_unique_id() -> int:
	return 1

func _get_connection_status() -> ConnectionStatus:
	return CONNECTION_CONNECTED

func _is_server_relay_supported() -> bool:
	return true
