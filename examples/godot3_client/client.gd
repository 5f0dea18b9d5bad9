# Godot 3 client for examples/multiplayer_server.rs. Run:
#   godot3 --path examples/godot3_client -s client.gd   (PORT=4242 by default)
# It joins, chats, moves and leaves, printing every message it receives as
# "RECV <hex of var2bytes(message)>" (the live test decodes those lines).
extends SceneTree

var tcp = StreamPeerTCP.new()
var peer = PacketPeerStream.new()

func hexs(b: PoolByteArray) -> String:
	var s = ""
	for x in b:
		s += "%02x" % x
	return s

func receive():
	var start = OS.get_ticks_msec()
	while OS.get_ticks_msec() - start < 10000:
		if peer.get_available_packet_count() > 0:
			var msg = peer.get_var()
			print("RECV ", hexs(var2bytes(msg)))
			return msg
		OS.delay_msec(5)
	printerr("timed out waiting for the server")
	quit(2)

func _init():
	var port = int(OS.get_environment("PORT")) if OS.has_environment("PORT") else 4242
	tcp.connect_to_host("127.0.0.1", port)
	var start = OS.get_ticks_msec()
	while tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		if OS.get_ticks_msec() - start > 10000:
			printerr("could not connect")
			quit(3)
			return
		OS.delay_msec(5)
	peer.stream_peer = tcp
	peer.put_var({"Join": {"name": "Godot3"}})
	receive()  # Welcome
	receive()  # PlayerList
	peer.put_var({"Chat": {"text": "hello from godot"}})
	receive()  # Chat
	peer.put_var({"Move": {"position": Vector3(1, 2.5, -3), "rotation": Quat(0, 0.6, 0, 0.8)}})
	receive()  # Moved
	peer.put_var("Leave")
	receive()  # Left
	print("DONE")
	quit()
