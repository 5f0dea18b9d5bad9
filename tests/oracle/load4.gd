# Reads a Godot 4 save (store_var values until the end) and prints each value's
# var_to_str, UTF-8 as hex, one "V <hex>" line a value; for cli/tests/cli.rs:
#
#   ORACLE_IN=/tmp/save4.bin godot4 --headless --path tests/oracle -s load4.gd
#
# With ORACLE_PASS set, the save is opened with open_encrypted_with_pass.
extends SceneTree

func _init() -> void:
	var path := OS.get_environment("ORACLE_IN")
	var password := OS.get_environment("ORACLE_PASS")
	var f: FileAccess
	if password == "":
		f = FileAccess.open(path, FileAccess.READ)
	else:
		f = FileAccess.open_encrypted_with_pass(path, FileAccess.READ, password)
	if f == null:
		printerr("cannot open ", path, ": ", error_string(FileAccess.get_open_error()))
		quit(1)
		return
	while f.get_position() < f.get_length():
		var v = f.get_var()
		print("V ", var_to_str(v).to_utf8_buffer().hex_encode())
	quit()
