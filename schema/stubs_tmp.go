package schema

func (c *checker) checkVoices()         {}
func (c *checker) checkEmbeddings()     {}
func (c *checker) checkSyntheses()      {}
func (c *checker) checkTranscriptions() {}
func (c *checker) checkPaths()          {}
