# Named raw packets as Godot 4 (4.6) writes them with StreamPeerBuffer, for
# tests/raw.rs. scripts/gen-raw-fixtures.sh writes the output to
# tests/fixtures/raw/godot4.6.jsonl: one line a packet, {"name": ..., "hex": ...}.
extends SceneTree

var s := StreamPeerBuffer.new()

func str0(v: String):
	s.put_data(v.to_utf8_buffer())
	s.put_u8(0)

func vec3(v: Vector3):
	s.put_float(v.x); s.put_float(v.y); s.put_float(v.z)

func out(name: String):
	print(JSON.stringify({"name": name, "hex": s.data_array.hex_encode()}))
	s.clear()
	s.big_endian = false

func _init():
	# Freeblox packets (a u8 id, NUL-terminated strings, little-endian floats).
	s.put_u8(0); str0("3f2a-11"); str0("tok€n"); s.put_u8(7); out("freeblox_auth")
	s.put_u8(1); out("freeblox_keepalive")
	s.put_u8(8); str0("obj-9"); vec3(Vector3(1.5, -2, 0.25))
	var q := Quaternion(0, 0.7071068, 0, 0.7071068)
	s.put_float(q.x); s.put_float(q.y); s.put_float(q.z); s.put_float(q.w)
	vec3(Vector3(0, 0, 0)); vec3(Vector3(0, 3.5, 0)); out("freeblox_stream_transform")
	s.put_u8(10); s.put_u32(2); str0("p1"); str0("Ann"); str0("p2"); str0("Bo"); out("freeblox_player_list")
	s.put_u8(14); str0("p1"); vec3(Vector3(1, 0, -1)); vec3(Vector3(0, 1, 0)); s.put_u8(1); out("freeblox_player_movement")
	s.put_u8(3); str0("res://a.png"); str0("a"); str0("Texture"); s.put_data(PackedByteArray([137, 80, 78, 71, 0, 255])); out("freeblox_stream_asset")
	s.put_u8(17); str0("bad token"); out("freeblox_error")
	# Every width and order.
	s.put_u8(255); s.put_8(-128); s.put_u16(65535); s.put_16(-2); s.put_u32(4294967295); s.put_32(-3); s.put_u64(-1); s.put_64(-9223372036854775807 - 1); out("ints_le")
	s.big_endian = true
	s.put_u8(255); s.put_8(-128); s.put_u16(258); s.put_16(-2); s.put_u32(16909060); s.put_32(-3); s.put_u64(72623859790382856); s.put_64(-4); out("ints_be")
	s.big_endian = true
	s.put_float(1.5); s.put_double(-0.1); s.put_half(1.5); out("floats_be")
	s.big_endian = true
	s.put_var(5); s.put_utf8_string("hé"); s.put_string("hi"); s.put_var("x"); out("var_and_strings_be")
	s.put_utf8_string("hé€😀"); s.put_string("hi!"); out("strings_le")
	s.put_string("hé"); out("put_string_non_ascii")
	for v in [1.5, 0.1, 65504.0, 65519.0, 65520.0, 1e6, 6.1e-5, 3e-5, 6e-8, -0.0, -2.5, INF, -INF, NAN]:
		s.put_half(v)
	out("halves")
	s.put_var(Vector3(1, 2, 3)); s.put_var([1, "a"]); out("vars")
	quit(0)
