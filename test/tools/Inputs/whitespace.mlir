
   
// only a comment
	
