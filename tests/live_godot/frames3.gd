# Framing oracle for Godot 3 (tests/live_godot.rs). MODE=write prints, for each value,
# its var2bytes and the bytes of StreamPeer.put_var (little- and big-endian),
# PacketPeerStream.put_var (over a big-endian StreamPeerBuffer) and
# Marshalls.variant_to_base64, then PacketPeerStream's limits. MODE=read decodes the
# files the Rust side wrote in $DIR and prints var2bytes of every value it got.
extends SceneTree

const VALUES = [42, "hi", Vector3(1, 2, 3), {"a": [0.1, null]}, Quat(0, 0.6, 0, 0.8), 1 << 40]

func values():
	var v = VALUES.duplicate()
	v.append(PoolStringArray(["x", "yz"]))
	v.append(Transform(Basis(Vector3(0, 1, 0), 0.5), Vector3(1, 2, 3)))
	return v

func buffer(big_endian):
	var sb = StreamPeerBuffer.new()
	sb.big_endian = big_endian
	return sb

func read_file(name):
	var f = File.new()
	f.open(OS.get_environment("DIR").plus_file(name), File.READ)
	var b = f.get_buffer(f.get_len())
	f.close()
	return b

func receivable(n):
	var sb = StreamPeerBuffer.new()
	sb.put_32(n)
	var payload = PoolByteArray()
	payload.resize(n)
	sb.put_data(payload)
	sb.seek(0)
	var pps = PacketPeerStream.new()
	pps.stream_peer = sb
	return pps.get_available_packet_count()

func write():
	var i = 0
	for v in values():
		print("VAR %d %s" % [i, var2bytes(v).hex_encode()])
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
			print("GOT_" + part[0] + " " + var2bytes(sb.get_var()).hex_encode())
	var pps = PacketPeerStream.new()
	var under = buffer(true)
	under.data_array = read_file("PPS.bin")
	pps.stream_peer = under
	while pps.get_available_packet_count() > 0:
		print("GOT_PPS " + var2bytes(pps.get_var()).hex_encode())
	var f = File.new()
	f.open(OS.get_environment("DIR").plus_file("B64.txt"), File.READ)
	while not f.eof_reached():
		var line = f.get_line()
		if line != "":
			print("GOT_B64 " + var2bytes(Marshalls.base64_to_variant(line)).hex_encode())
	f.close()

func _init():
	if OS.get_environment("MODE") == "write":
		write()
	else:
		read()
	quit()
