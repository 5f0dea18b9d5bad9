# Godot 3 save-file oracle. MODE=write: store_var three values into $FILE.
# MODE=read: get_var until the end, printing "VALUE <var2str on one line>".
# BIG_ENDIAN=1 sets File.endian_swap (big-endian length prefixes).
extends SceneTree

func _init():
	var f = File.new()
	var write = OS.get_environment("MODE") == "write"
	f.open(OS.get_environment("FILE"), File.WRITE if write else File.READ)
	f.endian_swap = OS.get_environment("BIG_ENDIAN") == "1"
	if write:
		f.store_var(42)
		f.store_var("hi")
		f.store_var({"name": "Ann", "hp": 100, "pos": Vector3(1, 2, 3)})
	else:
		while f.get_position() < f.get_len():
			print("VALUE ", var2str(f.get_var()).replace("\n", " "))
	f.close()
	quit()
