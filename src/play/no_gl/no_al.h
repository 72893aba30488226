// Included by the headers beside it (AL/al.h, AL/alc.h), which stand in for OpenAL's on the play and playtest
// modules' include paths: play tells its sounds to a play::SoundSink (sound.h) and voxen::audio makes every OpenAL
// call (docs/ARCHITECTURE.md, Sound).
#error "voxen::play makes no OpenAL calls: an OpenAL header was included from src/play (or src/playtest, behind the same fence); play through voxen::audio (play::SoundSink, audio::Mixer) instead"
