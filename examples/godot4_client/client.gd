# Godot 4 client for examples/multiplayer_server.rs (run the server with "godot4"):
#   godot4 --headless --path examples/godot4_client -s client.gd   (PORT=4242 by default)
# It joins, chats, moves and leaves, printing every message it receives as
# "RECV <hex of var_to_bytes(message)>" (the live test decodes those lines).
extends SceneTree

var tcp = StreamPeerTCP.new()
var peer = PacketPeerStream.new()

func receive():
	var start = Time.get_ticks_msec()
	while Time.get_ticks_msec() - start < 10000:
		tcp.poll()
		if peer.get_available_packet_count() > 0:
			var msg = peer.get_var()
			print("RECV ", var_to_bytes(msg).hex_encode())
			return msg
		OS.delay_msec(5)
	printerr("timed out waiting for the server")
	quit(2)

func _init():
	var port = int(OS.get_environment("PORT")) if OS.has_environment("PORT") else 4242
	tcp.connect_to_host("127.0.0.1", port)
	var start = Time.get_ticks_msec()
	while tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		tcp.poll()
		if Time.get_ticks_msec() - start > 10000:
			printerr("could not connect")
			quit(3)
			return
		OS.delay_msec(5)
	peer.stream_peer = tcp
	peer.put_var({"Join": {"name": "Godot4"}})
	receive()  # Welcome
	receive()  # PlayerList
	peer.put_var({"Chat": {"text": "hello from godot"}})
	receive()  # Chat
	peer.put_var({"Move": {"position": Vector3(1, 2.5, -3), "rotation": Quaternion(0, 0.6, 0, 0.8)}})
	receive()  # Moved
	peer.put_var("Leave")
	receive()  # Left
	print("DONE")
	quit()
