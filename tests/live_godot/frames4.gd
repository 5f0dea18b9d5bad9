# Framing oracle for Godot 4 (tests/live_godot.rs). MODE=write prints, for each value,
# its var_to_bytes and the bytes of StreamPeer.put_var (little- and big-endian),
# PacketPeerStream.put_var (over a big-endian StreamPeerBuffer) and
# Marshalls.variant_to_base64, then PacketPeerStream's limits. MODE=read decodes the
# files the Rust side wrote in $DIR and prints var_to_bytes of every value it got.
extends SceneTree

func values():
	return [42, "hi", Vector3(1, 2, 3), {"a": [0.1, null]}, Quaternion(0, 0.6, 0, 0.8), 1 << 40,
		PackedStringArray(["x", "yz"]), Transform3D(Basis(Vector3(0, 1, 0), 0.5), Vector3(1, 2, 3)),
		Vector2i(1, -2), &"name"]

func buffer(big_endian):
	var sb = StreamPeerBuffer.new()
	sb.big_endian = big_endian
	return sb

func read_file(name):
	return FileAccess.get_file_as_bytes(OS.get_environment("DIR").path_join(name))

func receivable(n):
	var sb = StreamPeerBuffer.new()
	sb.put_32(n)
	var payload = PackedByteArray()
	payload.resize(n)
	sb.put_data(payload)
	sb.seek(0)
	var pps = PacketPeerStream.new()
	pps.stream_peer = sb
	return pps.get_available_packet_count()

func write():
	var i = 0
	for v in values():
		print("VAR %d %s" % [i, var_to_bytes(v).hex_encode()])
		for big_endian in [false, true]:
			var sb = buffer(big_endian)
			sb.put_var(v)
			print("%s %d %s" % ["PUT_BE" if big_endian else "PUT_LE", i, sb.data_array.hex_encode()])
		var pps = PacketPeerStream.new()
		var under = buffer(true)
		pps.stream_peer = under
		pps.put_var(v)
		print("PPS %d %s" % [i, under.data_array.hex_encode()])
		print("B64 %d %s" % [i, Marshalls.variant_to_base64(v)])
		i += 1
	var pps = PacketPeerStream.new()
	print("PPS_LIMITS %d %d %d %d" % [pps.input_buffer_max_size, pps.output_buffer_max_size, receivable(65531), receivable(65532)])

func read():
	for part in [["LE", false], ["BE", true]]:
		var sb = buffer(part[1])
		sb.data_array = read_file(part[0] + ".bin")
		while sb.get_position() < sb.get_size():
			print("GOT_" + part[0] + " " + var_to_bytes(sb.get_var()).hex_encode())
	var pps = PacketPeerStream.new()
	var under = buffer(true)
	under.data_array = read_file("PPS.bin")
	pps.stream_peer = under
	while pps.get_available_packet_count() > 0:
		print("GOT_PPS " + var_to_bytes(pps.get_var()).hex_encode())
	for line in FileAccess.get_file_as_string(OS.get_environment("DIR").path_join("B64.txt")).split("\n", false):
		print("GOT_B64 " + var_to_bytes(Marshalls.base64_to_variant(line)).hex_encode())

func _init():
	if OS.get_environment("MODE") == "write":
		write()
	else:
		read()
	quit()
