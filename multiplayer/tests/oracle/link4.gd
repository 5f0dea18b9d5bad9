# A script MultiplayerPeer for the Godot 4 oracles that run several SceneMultiplayers
# in one process (mp4.gd, replicate4.gd, broadcast4.gd, which preload it): it prints
# every packet handed to it, {"packet": "<its name>2<the other's name>", "to",
# "channel", "mode", "hex"}, and delivers it to the Link of the peer it is for.
extends MultiplayerPeerExtension

var id := 0
var name := ""
# Peer id -> Link: a server's are its clients, a client's the server.
var links := {}
var inbox := []
var target := 0
var tchan := 0
var tmode := MultiplayerPeer.TRANSFER_MODE_RELIABLE

func _init(p_id := 0, p_name := ""):
	id = p_id
	name = p_name

func _get_available_packet_count() -> int: return inbox.size()
# SceneMultiplayer asks who sent a packet before taking it.
func _get_packet_script() -> PackedByteArray:
	return inbox.pop_front()[1]
func _put_packet_script(buf: PackedByteArray) -> Error:
	var to = links[target]
	print(JSON.stringify({"packet": name + "2" + to.name, "to": target, "channel": tchan, "mode": tmode, "hex": buf.hex_encode()}))
	to.inbox.push_back([id, buf, tchan, tmode])
	return OK
func _get_packet_peer() -> int: return inbox[0][0]
func _get_packet_channel() -> int: return inbox[0][2]
func _get_packet_mode() -> MultiplayerPeer.TransferMode: return inbox[0][3]
func _set_transfer_channel(c: int) -> void: tchan = c
func _get_transfer_channel() -> int: return tchan
func _set_transfer_mode(m: MultiplayerPeer.TransferMode) -> void: tmode = m
func _get_transfer_mode() -> MultiplayerPeer.TransferMode: return tmode
func _set_target_peer(p: int) -> void: target = p
func _is_server() -> bool: return id == 1
func _poll() -> void: pass
func _close() -> void: pass
func _disconnect_peer(_p: int, _now: bool) -> void: pass
func _get_unique_id() -> int: return id
func _get_connection_status() -> MultiplayerPeer.ConnectionStatus: return MultiplayerPeer.CONNECTION_CONNECTED
func _get_max_packet_size() -> int: return 1 << 24
func _is_server_relay_supported() -> bool: return true
