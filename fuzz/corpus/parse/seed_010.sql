EXEC #p;
